import { randomInt } from 'node:crypto';

/**
 * Asset id format (what the analytics store expects): 12 characters of base62 (`0-9A-Za-z`, in that
 * order): 7 characters encoding the milliseconds since 2019-07-23T00:00:00Z, then 5 random characters.
 */
export const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const ID_EPOCH_MS = Date.UTC(2019, 6, 23);
export const ID_LENGTH = 12;
const TIME_CHARS = 7;
export const ID_PATTERN = /^[0-9A-Za-z]{12}$/;
export const ID_RULE = 'an id is 12 characters of 0-9, A-Z, a-z (7 time characters, then 5 random characters)';

export function isValidAssetId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

export function generateAssetId(nowMs: number = Date.now()): string {
  let t = Math.max(0, Math.floor(nowMs - ID_EPOCH_MS));
  const out = new Array<string>(ID_LENGTH);
  for (let i = TIME_CHARS - 1; i >= 0; i--) {
    out[i] = ID_ALPHABET[t % 62];
    t = Math.floor(t / 62);
  }
  for (let i = TIME_CHARS; i < ID_LENGTH; i++) out[i] = ID_ALPHABET[randomInt(62)];
  return out.join('');
}
