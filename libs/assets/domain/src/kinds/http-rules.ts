import type { FieldProblem } from './kind-rules';

/**
 * An absolute http(s) URL with a host: no whitespace or control characters, and no credentials
 * (`https://user:pass@host`), which would hide the real host from a reader and bypass a
 * destination's own basic auth.
 */
export function isAbsoluteHttpUrl(text: string): boolean {
  if (/[\s\p{Cc}]/u.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

/** A header field name: an RFC 9110 token. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;
/** A header field value: tabs, visible ASCII, spaces and obs-text; never CR, LF or NUL (no header injection). */
const HEADER_VALUE_PATTERN = /^[\t\x20-\x7e\x80-\xff]*$/;
export const HEADERS_MAX = 50;
export const HEADER_VALUE_MAX = 1024;

/** Problems with a map of extra request headers: at most 50, valid names (each once, in any case), string values of 0..1024 valid characters. */
export function headerProblems(headers: unknown, at: string): FieldProblem[] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return [{ field: at, code: 'isObject', message: `${at} must be an object` }];
  const entries = Object.entries(headers as Record<string, unknown>);
  const problems: FieldProblem[] = [];
  if (entries.length > HEADERS_MAX) problems.push({ field: at, code: 'maxSize', message: `${at} may hold at most ${HEADERS_MAX} headers` });
  const seen = new Set<string>();
  for (const [name, value] of entries.slice(0, HEADERS_MAX + 1)) {
    const field = `${at}.${name}`;
    if (!HEADER_NAME_PATTERN.test(name)) {
      problems.push({ field: at, code: 'headerName', message: `${at}: ${JSON.stringify(name.slice(0, 64))} is not a valid header name` });
      continue;
    }
    if (seen.has(name.toLowerCase())) problems.push({ field, code: 'unique', message: `${field}: header names are case-insensitive; ${name} is given twice` });
    seen.add(name.toLowerCase());
    if (typeof value !== 'string') problems.push({ field, code: 'isString', message: `${field} must be a string` });
    else if (value.length > HEADER_VALUE_MAX) problems.push({ field, code: 'maxLength', message: `${field} must be at most ${HEADER_VALUE_MAX} characters` });
    else if (!HEADER_VALUE_PATTERN.test(value))
      problems.push({ field, code: 'headerValue', message: `${field} holds characters a header value cannot (CR, LF, NUL, ...)` });
  }
  return problems;
}
