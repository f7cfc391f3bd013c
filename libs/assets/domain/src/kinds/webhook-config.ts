import { WEBHOOK_URL_MAX } from '@funnel/contracts';
import { generateSigningSecret, isReservedDeliveryHeader } from '@funnel/platform';
import { isEncryptedSecret } from '../secret-fields';
import { headerProblems, isAbsoluteHttpUrl } from './http-rules';
import type { FieldProblem, KindRules } from './kind-rules';

/** Whether a text holds a control character (C0 or DEL). */
function hasControl(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** An absolute http(s) URL with a host and no credentials in it (they belong in basicAuth), at most WEBHOOK_URL_MAX long. */
export function isDeliveryUrl(text: string): boolean {
  return text.length <= WEBHOOK_URL_MAX && isAbsoluteHttpUrl(text);
}

/**
 * Extra delivery headers: the general header rules (http-rules), and none of the headers the
 * delivery sets itself (`webhook-*`, Content-Type, Host ...: `reserved`). With basicAuth set,
 * Authorization is the basic auth's (`conflict`).
 */
export function checkDeliveryHeaders(headers: unknown, field: string, hasBasicAuth: boolean): FieldProblem[] {
  return headerProblems(headers, field, (name, path) => {
    if (isReservedDeliveryHeader(name)) {
      return [
        {
          field: path,
          code: 'reserved',
          message: `${path}: the delivery sets ${name} itself (webhook-*, Content-Type, Host and connection headers are reserved)`,
        },
      ];
    }
    if (hasBasicAuth && name.toLowerCase() === 'authorization') {
      return [{ field: path, code: 'conflict', message: `${path}: basicAuth sets the Authorization header; use one or the other` }];
    }
    return [];
  });
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
    problems.push(...checkDeliveryHeaders(record.headers ?? {}, 'headers', basicAuth !== undefined));
    return problems;
  },
  normalize(record, current) {
    if (current && isEncryptedSecret(current.signingSecret)) return record;
    return { ...record, signingSecret: generateSigningSecret() };
  },
};
