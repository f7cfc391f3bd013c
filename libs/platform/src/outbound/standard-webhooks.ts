import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signing per the Standard Webhooks specification (https://www.standardwebhooks.com):
 *
 *   webhook-id:        msg_…            unique per message (the same on a resend)
 *   webhook-timestamp: 1674087231       when it was sent, integer Unix seconds
 *   webhook-signature: v1,<base64>      HMAC-SHA256 of "<id>.<timestamp>.<body>" under the secret's key
 *
 * A signing secret is `whsec_` followed by the base64 of the key (24 to 64 bytes); the key is the
 * decoded bytes, not the text. Receivers verify with `verifyWebhook` or any Standard Webhooks library.
 */

export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const SIGNING_SECRET_PREFIX = 'whsec_';
/** The spec's recommended bound on how far a timestamp may be from the receiver's clock. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

export type WebhookBody = string | Uint8Array;

/** The three headers that carry a message's identity and signature. */
export type StandardWebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** A new signing secret: `whsec_` and the base64 of 32 random bytes. */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/** A new message id: `msg_` and 22 random URL-safe characters (128 bits). */
export function newWebhookId(): string {
  return `msg_${randomBytes(16).toString('base64url')}`;
}

/** Whether a text is a well-formed signing secret (`whsec_` + base64 of 24..64 bytes). */
export function isSigningSecret(secret: string): boolean {
  return keyOf(secret) !== undefined;
}

function keyOf(secret: string): Buffer | undefined {
  if (typeof secret !== 'string' || !secret.startsWith(SIGNING_SECRET_PREFIX)) return undefined;
  const encoded = secret.slice(SIGNING_SECRET_PREFIX.length);
  if (!BASE64.test(encoded)) return undefined;
  const key = Buffer.from(encoded, 'base64');
  return key.length >= MIN_KEY_BYTES && key.length <= MAX_KEY_BYTES ? key : undefined;
}

/** The HMAC key of a signing secret; the error never shows the secret. */
function signingKey(secret: string): Buffer {
  const key = keyOf(secret);
  if (!key) throw new Error(`a signing secret is ${SIGNING_SECRET_PREFIX} followed by the base64 of ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes`);
  return key;
}

function hmac(key: Buffer, id: string, timestamp: number | string, body: WebhookBody): Buffer {
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body).digest();
}

/** The `webhook-signature` value for one message: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: WebhookBody): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) throw new Error('the timestamp is whole Unix seconds');
  return `v1,${hmac(signingKey(secret), id, timestampSeconds, body).toString('base64')}`;
}

/** The headers of a message sent now (or at `timestampSeconds`), with a new id unless one is given. */
export function standardWebhookHeaders(secret: string, body: WebhookBody, message: { id?: string; timestampSeconds?: number } = {}): StandardWebhookHeaders {
  const id = message.id ?? newWebhookId();
  const timestamp = message.timestampSeconds ?? Math.floor(Date.now() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, id, timestamp, body) };
}

/** Why a received message was not accepted; the message names the check, never the secret. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Request headers as Node (`IncomingHttpHeaders`), undici or a plain object holds them. */
export type ReceivedHeaders = Record<string, string | string[] | undefined> | Headers;

function header(headers: ReceivedHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return Array.isArray(value) ? value.join(' ') : value;
}

/**
 * The receiver's check: the three headers are present, the timestamp is within `toleranceSeconds` of
 * now (either way, against replays), and one of the `v1,` signatures in the header (space-separated,
 * so a sender can sign with an old and a new secret while rotating) matches the raw body. Throws a
 * WebhookVerificationError otherwise. Verify the body exactly as received, before parsing it.
 */
export function verifyWebhook(
  secret: string,
  headers: ReceivedHeaders,
  body: WebhookBody,
  toleranceSeconds = DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  nowSeconds = Math.floor(Date.now() / 1000),
): void {
  const key = signingKey(secret);
  const id = header(headers, WEBHOOK_ID_HEADER);
  const timestampText = header(headers, WEBHOOK_TIMESTAMP_HEADER);
  const signatures = header(headers, WEBHOOK_SIGNATURE_HEADER);
  if (!id || !timestampText || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature header');
  if (!/^\d{1,15}$/.test(timestampText)) throw new WebhookVerificationError('webhook-timestamp is not Unix seconds');
  const timestamp = Number(timestampText);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  const expected = hmac(key, id, timestampText, body);
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    if (version !== 'v1' || !signature || !BASE64.test(signature)) return false;
    const given = Buffer.from(signature, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!matches) throw new WebhookVerificationError('no matching signature');
}
