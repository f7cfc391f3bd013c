import { WEBHOOK_HEADERS_MAX, WEBHOOK_HEADER_NAME_MAX, WEBHOOK_HEADER_VALUE_MAX, WEBHOOK_URL_MAX } from '@funnel/contracts';
import { generateSigningSecret, isReservedDeliveryHeader } from '@funnel/platform';
import { isEncryptedSecret } from '../secret-fields';
import { isAbsoluteHttpUrl } from './http-rules';
import type { FieldProblem, KindRules } from './kind-rules';

/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Whether a text holds a control character (C0 or DEL); `allowTab` lets a header value keep its tabs. */
function hasControl(text: string, allowTab = false): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if ((code < 0x20 && !(allowTab && code === 0x09)) || code === 0x7f) return true;
  }
  return false;
}

/** An absolute http(s) URL with a host and no credentials in it (they belong in basicAuth), at most WEBHOOK_URL_MAX long. */
export function isDeliveryUrl(text: string): boolean {
  return text.length <= WEBHOOK_URL_MAX && isAbsoluteHttpUrl(text);
}

/** A header name as shown in a problem: bounded, never a value. */
const shown = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

/**
 * Extra delivery headers: at most 50, valid names (each once, whatever the case), string values of
 * at most 1024 characters without line breaks, and none of the headers the delivery sets itself
 * (`webhook-*`, Content-Type, Host ...). With basicAuth set, Authorization is the basic auth's.
 */
export function checkDeliveryHeaders(headers: Record<string, unknown>, field: string, hasBasicAuth: boolean): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const entries = Object.entries(headers);
  if (entries.length > WEBHOOK_HEADERS_MAX) {
    problems.push({ field, code: 'maxEntries', message: `${field} may hold at most ${WEBHOOK_HEADERS_MAX} entries` });
  }
  const seen = new Set<string>();
  for (const [name, value] of entries.slice(0, WEBHOOK_HEADERS_MAX + 1)) {
    const path = `${field}.${shown(name)}`;
    if (name.length > WEBHOOK_HEADER_NAME_MAX || !HEADER_NAME.test(name)) {
      problems.push({
        field: path,
        code: 'headerName',
        message: `${path} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~-, at most ${WEBHOOK_HEADER_NAME_MAX})`,
      });
      continue;
    }
    const lower = name.toLowerCase();
    if (isReservedDeliveryHeader(name)) {
      problems.push({
        field: path,
        code: 'reserved',
        message: `${path}: the delivery sets ${name} itself (webhook-*, Content-Type, Host and connection headers are reserved)`,
      });
    } else if (hasBasicAuth && lower === 'authorization') {
      problems.push({ field: path, code: 'conflict', message: `${path}: basicAuth sets the Authorization header; use one or the other` });
    }
    if (seen.has(lower)) problems.push({ field: path, code: 'unique', message: `${path}: a header may be given once (names are case-insensitive)` });
    seen.add(lower);
    if (typeof value !== 'string' || value.length > WEBHOOK_HEADER_VALUE_MAX || hasControl(value, true)) {
      problems.push({
        field: path,
        code: 'headerValue',
        message: `${path} must be a string of at most ${WEBHOOK_HEADER_VALUE_MAX} characters without line breaks`,
      });
    }
  }
  return problems;
}

/**
 * Webhook configs: the destination URL, the extra headers and the basic-auth user are checked; every
 * config gets a signing secret (`whsec_` + 32 random bytes, base64) when it is created or duplicated
 * (a copy signs with a secret of its own). An update keeps the stored one: clients cannot write it,
 * only rotate it (`secret/rotate/`).
 */
export const webhookConfigRules: KindRules = {
  check(record) {
    const problems: FieldProblem[] = [];
    if (record.url !== undefined && !isDeliveryUrl(String(record.url))) {
      problems.push({
        field: 'url',
        code: 'isUrl',
        message: 'url must be an absolute http(s) URL without credentials (use basicAuth), at most 4096 characters',
      });
    }
    const basicAuth = record.basicAuth as { username?: string } | undefined;
    if (basicAuth && typeof basicAuth.username === 'string' && (basicAuth.username.includes(':') || hasControl(basicAuth.username))) {
      problems.push({ field: 'basicAuth.username', code: 'pattern', message: 'basicAuth.username may not contain ":" or control characters' });
    }
    problems.push(...checkDeliveryHeaders((record.headers ?? {}) as Record<string, unknown>, 'headers', basicAuth !== undefined));
    return problems;
  },
  normalize(record, current) {
    if (current && isEncryptedSecret(current.signingSecret)) return record;
    return { ...record, signingSecret: generateSigningSecret() };
  },
};
