// The entrance token of a tracking link: `<idFunnel><idTrafficSource>` (24 characters) or
// `<idFunnel><idTrafficSource><idNode>` (36), each part an asset id (12 base62 characters).
import { ID_LENGTH, ID_PATTERN } from '@funnel/contracts';

export interface EntranceToken {
  idFunnel: string;
  idTrafficSource: string;
  /** The node the link enters at; absent: the funnel's root. */
  idNode?: string;
}

/** Why a token was refused (shown to nobody but logs and tests: the visitor sees one 404 page). */
export type EntranceTokenRefusal = 'length' | 'characters';

export type ParsedEntranceToken = { ok: true; token: EntranceToken } | { ok: false; refusal: EntranceTokenRefusal; message: string };

const TOKEN_CHARACTERS = /^[0-9A-Za-z]*$/;

/** Reads an entrance token; refuses anything that is not two or three asset ids end to end. */
export function parseEntranceToken(text: string): ParsedEntranceToken {
  if (text.length !== 2 * ID_LENGTH && text.length !== 3 * ID_LENGTH) {
    return {
      ok: false,
      refusal: 'length',
      message: `an entrance token is ${2 * ID_LENGTH} or ${3 * ID_LENGTH} characters, got ${Math.min(text.length, 9999)}`,
    };
  }
  if (!TOKEN_CHARACTERS.test(text)) return { ok: false, refusal: 'characters', message: 'an entrance token holds only 0-9, A-Z and a-z' };
  const token: EntranceToken = { idFunnel: text.slice(0, ID_LENGTH), idTrafficSource: text.slice(ID_LENGTH, 2 * ID_LENGTH) };
  if (text.length === 3 * ID_LENGTH) token.idNode = text.slice(2 * ID_LENGTH);
  return { ok: true, token };
}

/** The token of a link to a funnel for a traffic source (at a node when given). */
export function entranceTokenOf(token: EntranceToken): string {
  for (const id of [token.idFunnel, token.idTrafficSource, ...(token.idNode === undefined ? [] : [token.idNode])]) {
    if (!ID_PATTERN.test(id)) throw new RangeError(`not an asset id: ${JSON.stringify(id)}`);
  }
  return `${token.idFunnel}${token.idTrafficSource}${token.idNode ?? ''}`;
}
