/** The values a postback's tokens stand for. */
export interface PostbackTokenValues {
  /** The payout sent (after the revenue modifier). */
  payout: string;
  transactionId: string;
  hitId: string;
  /** The hit's tracking fields: slot -> value. */
  trackingFields: Record<string, string>;
  /** The source's tracking fields: slot -> `{ name }`, for `{trackingField.<name>}`. */
  trackingFieldSlots?: Record<string, { name: string }>;
}

const TOKEN = /\{([^{}\s]{1,80})\}/g;
const TRACKING_FIELD_PREFIX = 'trackingField.';

/**
 * Replaces the tokens of a postback (URL or javascript code) with URL-encoded values: `{payout}`,
 * `{txid}`, `{hitid}`, a tracking-field slot `{campaign}`, `{external}`, `{c1}`..`{c20}`, and
 * `{trackingField.<name>}` with the URL parameter name of one of the source's tracking fields. A
 * tracking field the hit has no value for becomes ""; any other `{...}` is left as written.
 */
export function buildPostbackUrl(code: string, values: PostbackTokenValues): string {
  const bySlotName = new Map<string, string>();
  for (const [slot, field] of Object.entries(values.trackingFieldSlots ?? {})) bySlotName.set(field.name, slot);
  return code.replace(TOKEN, (whole, token: string) => {
    const value = tokenValue(token, values, bySlotName);
    return value === undefined ? whole : encodeURIComponent(value);
  });
}

function tokenValue(token: string, values: PostbackTokenValues, bySlotName: Map<string, string>): string | undefined {
  switch (token) {
    case 'payout':
      return values.payout;
    case 'txid':
      return values.transactionId;
    case 'hitid':
      return values.hitId;
  }
  if (token.startsWith(TRACKING_FIELD_PREFIX)) {
    const slot = bySlotName.get(token.slice(TRACKING_FIELD_PREFIX.length));
    return slot === undefined ? undefined : (values.trackingFields[slot] ?? '');
  }
  if (isSlotToken(token)) return values.trackingFields[token] ?? '';
  return undefined;
}

/**
 * The tracking-field slots whose values `buildPostbackUrl` puts into `code` (`{external}`, `{c3}`, or
 * `{trackingField.<name>}` of one of `trackingFieldSlots`), each once: what a hit must have read of
 * its tracking fields for the postback.
 */
export function postbackSlots(code: string, trackingFieldSlots?: Record<string, { name: string }>): string[] {
  const bySlotName = new Map<string, string>();
  for (const [slot, field] of Object.entries(trackingFieldSlots ?? {})) bySlotName.set(field.name, slot);
  const slots = new Set<string>();
  for (const [, token] of code.matchAll(TOKEN)) {
    if (token.startsWith(TRACKING_FIELD_PREFIX)) {
      const slot = bySlotName.get(token.slice(TRACKING_FIELD_PREFIX.length));
      if (slot !== undefined) slots.add(slot);
    } else if (isSlotToken(token)) slots.add(token);
  }
  return [...slots];
}

function isSlotToken(token: string): boolean {
  return token === 'campaign' || token === 'external' || /^c([1-9]|1\d|20)$/.test(token);
}

/** Query parameter names whose values are treated as secrets when a postback is listed. */
export const SECRET_PARAMETER_NAME = /token|key|secret|passw|pwd|auth|sig|session|credential|apikey/i;
export const MASK = '********';

/**
 * A postback URL (or code) as it may be listed: userinfo passwords and the values of query
 * parameters whose names look secret (token, key, secret, password, auth, sig...) become `********`;
 * the rest of the text is kept as it was.
 */
export function maskPostbackUrl(text: string): string {
  return text
    .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)([^\s/?#@]*)@/gi, (_all, head: string) => `${head}${MASK}@`)
    .replace(/([?&;])([^=&;#\s"']+)=([^&;#\s"']*)/g, (all, separator: string, name: string) => {
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // a malformed escape: judge the raw name
      }
      return SECRET_PARAMETER_NAME.test(decoded) ? `${separator}${name}=${MASK}` : all;
    });
}
