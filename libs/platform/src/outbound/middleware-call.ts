import { createHmac } from 'node:crypto';
import { isHeaderName, isHeaderValue } from './http-headers';
import { OutboundFailure, type OutboundHttp } from './outbound-http';
import { isReservedDeliveryHeader, outboundFailureSentence, statusError } from './webhook-delivery';

/** The header carrying a middleware request's signature: the hex HMAC-SHA256 of the body under the config's hmacSecret. */
export const MIDDLEWARE_SIGNATURE_HEADER = 'x-signature';

export interface MiddlewareCallRequest {
  /** Absolute http(s) URL; the SSRF rule of OutboundHttp applies. */
  url: string;
  method: 'POST' | 'GET';
  /** The config's headers (node overrides applied); reserved names and malformed ones are left out. */
  headers?: Record<string, string>;
  /** Sent as `Authorization: Basic …`, in place of any Authorization header in `headers`. */
  basicAuth?: { username: string; password: string };
  /** Signs the body: `X-Signature: <hex HMAC-SHA256 of the body>`. */
  hmacSecret?: string;
  /** The JSON payload: the body of a POST (a GET carries no body; its signature is of the empty body). */
  payload: unknown;
  timeoutMs: number;
}

export interface MiddlewareCallResult {
  /** The server's answer (its status and up to 64 KiB of its body as text); null when none came. */
  answer: { status: number; body: string } | null;
  /** The server's status; null when no answer came (refused address, connection failure, timeout). */
  httpStatus: number | null;
  responseTimeMs: number;
  /** No answer came within the time bound. */
  timedOut: boolean;
  /** null for a 2xx answer, else one short sentence (never a secret, a header value or the URL's path). */
  error: string | null;
}

/** The hex HMAC-SHA256 of a body, as a middleware server checks it. */
export function middlewareSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * Calls a middleware server once through the SSRF-guarded client: the JSON payload (POST), the
 * config's headers and basic auth, the HMAC signature, no redirects, the config's time bound. The
 * caller matches the answer against the config's routes (`matchMiddlewareAnswer` of @funnel/routing);
 * no answer (a timeout, a refused address, a failed connection) is a failure. Never throws.
 */
export async function callMiddleware(http: OutboundHttp, request: MiddlewareCallRequest): Promise<MiddlewareCallResult> {
  const body = request.method === 'GET' ? '' : JSON.stringify(request.payload ?? null);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (isReservedDeliveryHeader(name) || name.toLowerCase() === MIDDLEWARE_SIGNATURE_HEADER || !isHeaderName(name)) continue;
    if (typeof value !== 'string' || !isHeaderValue(value)) continue;
    if (request.basicAuth && name.toLowerCase() === 'authorization') continue;
    headers[name.toLowerCase()] = value;
  }
  if (request.basicAuth) {
    const { username, password } = request.basicAuth;
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }
  if (request.method !== 'GET') headers['content-type'] = 'application/json';
  if (request.hmacSecret) headers[MIDDLEWARE_SIGNATURE_HEADER] = middlewareSignature(request.hmacSecret, body);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const response = await http.request({
      url: request.url,
      method: request.method,
      headers,
      ...(request.method === 'GET' ? {} : { body }),
      timeoutMs: request.timeoutMs,
      maxResponseBytes: 64 * 1024,
    });
    const ok = response.status >= 200 && response.status < 300;
    return {
      answer: { status: response.status, body: response.body.toString('utf8') },
      httpStatus: response.status,
      responseTimeMs: elapsed(),
      timedOut: false,
      error: ok ? null : statusError(response.status),
    };
  } catch (error) {
    const timedOut = error instanceof OutboundFailure && error.code === 'OUTBOUND.TIMEOUT';
    return { answer: null, httpStatus: null, responseTimeMs: elapsed(), timedOut, error: outboundFailureSentence(error, request.timeoutMs) };
  }
}
