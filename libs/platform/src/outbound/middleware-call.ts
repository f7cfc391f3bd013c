import { createHmac } from 'node:crypto';
import { isHeaderName, isHeaderValue } from './http-headers';
import type { OutboundHttp } from './outbound-http';
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
  /** The route the server answered (`{ "route": "<id>" }` with a 2xx status), or null. */
  route: string | null;
  /** The server's status; null when no answer came (refused address, connection failure, timeout). */
  httpStatus: number | null;
  responseTimeMs: number;
  /** null when a route came back, else one short sentence (never a secret, a header value or the URL's path). */
  error: string | null;
}

/** The hex HMAC-SHA256 of a body, as a middleware server checks it. */
export function middlewareSignature(secret: string, body: string): string {
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/**
 * Calls a middleware server once through the SSRF-guarded client: the JSON payload (POST), the
 * config's headers and basic auth, the HMAC signature, no redirects, the config's time bound. The
 * answer names the route as `{ "route": "<routeId>" }`; anything else (a non-2xx status, a body that
 * is not such JSON, a timeout, a refused address) is a failure, for which the caller takes the default
 * route. Never throws.
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
    if (response.status < 200 || response.status >= 300)
      return { route: null, httpStatus: response.status, responseTimeMs: elapsed(), error: statusError(response.status) };
    const route = routeOf(response.body.toString('utf8'));
    return route === null
      ? { route: null, httpStatus: response.status, responseTimeMs: elapsed(), error: 'the answer is not JSON with a "route" string' }
      : { route, httpStatus: response.status, responseTimeMs: elapsed(), error: null };
  } catch (error) {
    return { route: null, httpStatus: null, responseTimeMs: elapsed(), error: outboundFailureSentence(error, request.timeoutMs) };
  }
}

function routeOf(text: string): string | null {
  try {
    const answer: unknown = JSON.parse(text);
    const route = typeof answer === 'object' && answer !== null ? (answer as { route?: unknown }).route : undefined;
    return typeof route === 'string' && route !== '' ? route : null;
  } catch {
    return null;
  }
}
