import { isHeaderName, isHeaderValue } from '@funnel/platform';
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

export const HEADERS_MAX = 50;
export const HEADER_NAME_MAX = 256;
export const HEADER_VALUE_MAX = 1024;

/** A header name as a field path shows it: bounded (never a value). */
const shownName = (name: string) => (name.length > 64 ? `${name.slice(0, 64)}…` : name);

/** More problems of one valid header, by a kind's own rules (reserved names, conflicts with other fields); `field` is the header's path. */
export type HeaderAddition = (name: string, field: string) => FieldProblem[];

/**
 * Problems with a map of extra request headers: at most 50 (`maxEntries`), names that are HTTP
 * tokens of at most 256 characters (`headerName`), each once whatever its case (`unique`), string
 * values (`isString`) of at most 1024 characters (`maxLength`) that Node can send: no CR, LF, NUL or
 * other control character but tab, nothing past Latin-1 (`headerValue`). A kind adds its own rules
 * per valid name with `more`. No problem echoes a value.
 */
export function headerProblems(headers: unknown, at: string, more?: HeaderAddition): FieldProblem[] {
  if (headers === undefined) return [];
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return [{ field: at, code: 'isObject', message: `${at} must be an object` }];
  const entries = Object.entries(headers as Record<string, unknown>);
  const problems: FieldProblem[] = [];
  if (entries.length > HEADERS_MAX) problems.push({ field: at, code: 'maxEntries', message: `${at} may hold at most ${HEADERS_MAX} headers` });
  const seen = new Set<string>();
  for (const [name, value] of entries.slice(0, HEADERS_MAX + 1)) {
    const field = `${at}.${shownName(name)}`;
    if (name.length > HEADER_NAME_MAX || !isHeaderName(name)) {
      problems.push({
        field,
        code: 'headerName',
        message: `${at}: ${JSON.stringify(shownName(name))} is not a valid header name (letters, digits and !#$%&'*+.^_\`|~-, at most ${HEADER_NAME_MAX})`,
      });
      continue;
    }
    if (more) problems.push(...more(name, field));
    if (seen.has(name.toLowerCase())) problems.push({ field, code: 'unique', message: `${field}: header names are case-insensitive; ${name} is given twice` });
    seen.add(name.toLowerCase());
    if (typeof value !== 'string') problems.push({ field, code: 'isString', message: `${field} must be a string` });
    else if (value.length > HEADER_VALUE_MAX) problems.push({ field, code: 'maxLength', message: `${field} must be at most ${HEADER_VALUE_MAX} characters` });
    else if (!isHeaderValue(value))
      problems.push({ field, code: 'headerValue', message: `${field} holds characters a header value cannot (CR, LF, NUL, ...)` });
  }
  return problems;
}
