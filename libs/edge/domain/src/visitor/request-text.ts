// The parts of a visitor's request the edge reads, each bounded: a huge header or query costs no more
// than a normal one.
import { UNKNOWN } from './unknown';

/** A header as Node gives it (repeated headers as an array, or joined). */
export type HeaderValue = string | readonly string[] | undefined;

/** Longest Referer kept, and longest current URL. */
export const MAX_URL_LENGTH = 2048;
/** At most this many query parameters are read, names up to 128 characters, values up to MAX_URL_LENGTH. */
export const MAX_PARAMS = 100;
const MAX_PARAM_NAME_LENGTH = 128;
const MAX_HOST_LENGTH = 253 + 6;

/** The first value of a header, at most `max` characters; undefined when absent or empty. */
export function headerText(value: HeaderValue, max: number): string | undefined {
  const text = typeof value === 'string' ? value : value?.[0];
  if (!text) return undefined;
  return text.length > max ? text.slice(0, max) : text;
}

const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}))*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The tracking domain of a Host header: lower case, no port, no trailing dot; `unknown` when it is no host name. */
export function trackingDomainOf(host: string | undefined): string {
  if (!host || host.length > MAX_HOST_LENGTH || !HOST.test(host)) return UNKNOWN;
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.replace(/:\d+$/, '');
  return name.replace(/\.$/, '').toLowerCase();
}

/** The URL the visitor asked for: `<protocol>://<host><path and query>`, cut at MAX_URL_LENGTH; `unknown` without a host. */
export function currentUrlOf(protocol: string | undefined, host: string | undefined, url: string | undefined): string {
  if (!host || host.length > MAX_HOST_LENGTH || !HOST.test(host)) return UNKNOWN;
  const scheme = protocol === 'https' ? 'https' : 'http';
  const full = `${scheme}://${host}${url && url.startsWith('/') ? url : '/'}`;
  return full.length > MAX_URL_LENGTH ? full.slice(0, MAX_URL_LENGTH) : full;
}

/**
 * The URL parameters of a parsed query (Fastify's `request.query`): string values, the last one of a
 * repeated name; at most MAX_PARAMS names of up to 128 characters, values cut at MAX_URL_LENGTH.
 */
export function urlParamsOf(query: unknown): Record<string, string> {
  const params: Record<string, string> = {};
  if (typeof query !== 'object' || query === null) return params;
  let count = 0;
  for (const name in query) {
    if (count >= MAX_PARAMS) break;
    if (!Object.prototype.hasOwnProperty.call(query, name) || name.length === 0 || name.length > MAX_PARAM_NAME_LENGTH) continue;
    const raw = (query as Record<string, unknown>)[name];
    const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (typeof value !== 'string') continue;
    const kept = value.length > MAX_URL_LENGTH ? value.slice(0, MAX_URL_LENGTH) : value;
    // Set in place (no entries array and fromEntries per request); __proto__ defined as an own property, a parameter like any other.
    if (name === '__proto__') Object.defineProperty(params, name, { value: kept, enumerable: true, writable: true, configurable: true });
    else params[name] = kept;
    count++;
  }
  return params;
}
