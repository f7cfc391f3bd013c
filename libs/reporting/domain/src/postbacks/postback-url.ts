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
  const parts = postbackParts(code, values.trackingFieldSlots);
  let url = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      url += part;
      continue;
    }
    const value = part.value(values);
    url += value === undefined ? part.whole : encodeURIComponent(value);
  }
  return url;
}

/** A token of a postback: its text as written, and the value it stands for (undefined: left as written). */
interface TokenPart {
  whole: string;
  value(values: PostbackTokenValues): string | undefined;
}

/** Sources' `trackingFieldSlots` -> postback code -> its parts; postbacks without slots under NO_SLOTS. */
const partsBySlots = new WeakMap<object, Map<string, readonly (string | TokenPart)[]>>();
const NO_SLOTS = {};
/** Codes kept per `trackingFieldSlots` at most (a source has one postback, a funnel may override it). */
const CODES_PER_SLOTS = 64;

/**
 * A postback's text split into its literal text and its tokens, each token resolved once (the slot
 * a `{trackingField.<name>}` names): a job builds many URLs of the same postback.
 */
function postbackParts(code: string, trackingFieldSlots: Record<string, { name: string }> | undefined): readonly (string | TokenPart)[] {
  const key = trackingFieldSlots ?? NO_SLOTS;
  let codes = partsBySlots.get(key);
  if (!codes) {
    codes = new Map();
    partsBySlots.set(key, codes);
  }
  let parts = codes.get(code);
  if (parts) return parts;
  const bySlotName = new Map<string, string>();
  for (const [slot, field] of Object.entries(trackingFieldSlots ?? {})) bySlotName.set(field.name, slot);
  const split: (string | TokenPart)[] = [];
  let last = 0;
  for (const match of code.matchAll(TOKEN)) {
    if (match.index > last) split.push(code.slice(last, match.index));
    const [whole, token] = match;
    split.push({ whole, value: (values) => tokenValue(token, values, bySlotName) });
    last = match.index + whole.length;
  }
  if (last < code.length) split.push(code.slice(last));
  if (codes.size >= CODES_PER_SLOTS) codes.delete(codes.keys().next().value!);
  codes.set(code, split);
  parts = split;
  return parts;
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
