import { OutboundRefusedError } from './guarded-lookup';
import { isHeaderName, isHeaderValue } from './http-headers';
import { OutboundFailure, type OutboundHttp } from './outbound-http';
import { standardWebhookHeaders } from './standard-webhooks';

export const WEBHOOK_DELIVERY_TIMEOUT_MS = 3000;

export interface WebhookDeliveryRequest {
  /** Absolute http(s) URL; the SSRF rule of OutboundHttp applies. */
  url: string;
  /** Default POST. */
  method?: 'POST' | 'PUT' | 'PATCH';
  /** The config's extra headers; reserved names (see isReservedDeliveryHeader) and malformed ones are left out. */
  headers?: Record<string, string>;
  /** Sent as `Authorization: Basic …`, in place of any Authorization header in `headers`. */
  basicAuth?: { username: string; password: string };
  /** `whsec_…`: signs the message per Standard Webhooks. */
  signingSecret: string;
  /** The body is `{ type: eventType, timestamp: <ISO time>, data: payload }`, the Standard Webhooks payload shape. */
  eventType: string;
  payload: unknown;
  /** Default 3000 ms (WEBHOOK_DELIVERY_TIMEOUT_MS). */
  timeoutMs?: number;
  /** The whole JSON body, sent in place of `{ type, timestamp, data }` (a payload schema of its own). */
  body?: Record<string, unknown>;
  /** The `webhook-id` (the same on every attempt of one message, so receivers dedupe on it); a new one when absent. */
  messageId?: string;
  /** Headers the sender sets itself (schema, trigger, request id): they win over the config's `headers`. */
  ownHeaders?: Record<string, string>;
}

export interface WebhookDeliveryResult {
  /** The receiver answered 2xx. */
  delivered: boolean;
  /** The receiver's status; null when no answer came (refused address, connection failure, timeout). */
  httpStatus: number | null;
  /** From the start of the attempt to its end, whatever the outcome. */
  responseTimeMs: number;
  /** null when delivered, else one short sentence (never a secret, a header value or the URL's path). */
  error: string | null;
}

/**
 * Headers a config may not set: the signature headers, those that describe the body or the
 * connection (the client sets them), and Host (it must match the URL the address rule checked).
 */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/** Whether a delivery header name is reserved: `webhook-*` and the body/connection headers above (any case). */
export function isReservedDeliveryHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('webhook-') || RESERVED_HEADERS.has(lower);
}

/**
 * Sends one event to a webhook URL through the SSRF-guarded client: JSON body, signed per Standard
 * Webhooks, the config's headers and basic auth, no redirects (a 3xx is an answer, not delivered),
 * 3 s bound. Whatever the receiver or the network does, the outcome is in the result; it throws only
 * for a malformed signing secret (the service generates them, so that is a bug).
 */
export async function deliverWebhook(http: OutboundHttp, request: WebhookDeliveryRequest): Promise<WebhookDeliveryResult> {
  const timeoutMs = request.timeoutMs ?? WEBHOOK_DELIVERY_TIMEOUT_MS;
  const body = JSON.stringify(request.body ?? { type: request.eventType, timestamp: new Date().toISOString(), data: request.payload ?? null });
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (isReservedDeliveryHeader(name) || !isHeaderName(name) || typeof value !== 'string' || !isHeaderValue(value)) continue;
    if (request.basicAuth && name.toLowerCase() === 'authorization') continue;
    headers[name.toLowerCase()] = value;
  }
  if (request.basicAuth) {
    const { username, password } = request.basicAuth;
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }
  for (const [name, value] of Object.entries(request.ownHeaders ?? {})) headers[name.toLowerCase()] = value;
  Object.assign(headers, { 'content-type': 'application/json' }, standardWebhookHeaders(request.signingSecret, body, { id: request.messageId }));

  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await http.request({ url: request.url, method: request.method ?? 'POST', headers, body, timeoutMs, maxResponseBytes: 4096 });
    const delivered = response.status >= 200 && response.status < 300;
    return { delivered, httpStatus: response.status, responseTimeMs: elapsed(), error: delivered ? null : statusError(response.status) };
  } catch (error) {
    return { delivered: false, httpStatus: null, responseTimeMs: elapsed(), error: outboundFailureSentence(error, timeoutMs) };
  }
}

/** A failed answer's status as one short sentence. */
export function statusError(status: number): string {
  return status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
}

/** Why an outgoing request got no answer, as one short sentence (never a secret, a header value or the URL's path). */
export function outboundFailureSentence(error: unknown, timeoutMs: number): string {
  if (error instanceof OutboundRefusedError) {
    if (error.code === 'OUTBOUND.ADDRESS_REFUSED') return `address refused: ${error.message}`;
    if (error.code === 'OUTBOUND.UNRESOLVABLE') return `host not found: ${error.message}`;
    return `invalid URL: ${error.message}`;
  }
  if (error instanceof OutboundFailure) return error.code === 'OUTBOUND.TIMEOUT' ? `timed out after ${timeoutMs} ms` : error.message;
  return 'delivery failed';
}
