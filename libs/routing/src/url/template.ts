// URL templates: text with `{token}` placeholders, split once (at compile time) into literal text and
// token references, and rendered per walk with URL-encoded values.
import * as tokens from './tokens';
import type { TokenContext, TokenRef } from './tokens';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { tokenRef, tokenValue } = tokens;

/** Literal text (kept as written) or a token. */
export type Segment = string | TokenRef;

/** A token as postback URLs write them (the same pattern as the reporting side's postback-url). */
const TOKEN = /\{([^{}\s]{1,80})\}/g;

/** The segments of a template; `encodeLiterals` URL-encodes the literal text (for values written unencoded, e.g. an offer source's query params). */
export function parseTemplate(text: string, encodeLiterals = false): Segment[] {
  const segments: Segment[] = [];
  let at = 0;
  for (const match of text.matchAll(TOKEN)) {
    if (match.index > at) segments.push(literal(text.slice(at, match.index), encodeLiterals));
    segments.push(tokenRef(match[1]));
    at = match.index + match[0].length;
  }
  if (at < text.length) segments.push(literal(text.slice(at), encodeLiterals));
  return segments;
}

function literal(text: string, encode: boolean): string {
  return encode ? encodeURIComponent(text) : text;
}

/** The template with each token replaced by its URL-encoded value; a token without a value stays as written. */
export function render(segments: readonly Segment[], context: TokenContext): string {
  let out = '';
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (typeof segment === 'string') {
      out += segment;
      continue;
    }
    const value = tokenValue(segment, context);
    out += value === undefined ? segment.raw : encodeURIComponent(value);
  }
  return out;
}
