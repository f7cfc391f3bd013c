import { validateHeaderName, validateHeaderValue } from 'node:http';

/** Whether a text is a header field name Node sends: an RFC 9110 token (letters, digits and !#$%&'*+.^_`|~-), not empty. */
export function isHeaderName(name: string): boolean {
  try {
    validateHeaderName(name);
    return true;
  } catch {
    return false;
  }
}

/** Whether a text is a header field value Node sends: tabs, visible ASCII, spaces and Latin-1 obs-text; never CR, LF, NUL or another control character. */
export function isHeaderValue(value: string): boolean {
  try {
    validateHeaderValue('x', value);
    return true;
  } catch {
    return false;
  }
}
