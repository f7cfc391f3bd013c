import fc from 'fast-check';
import { ID_ALPHABET, ID_EPOCH_MS, ID_PATTERN, generateAssetId, isValidAssetId } from './ids';

const decodeTime = (id: string) => [...id.slice(0, 7)].reduce((t, c) => t * 62 + ID_ALPHABET.indexOf(c), 0);

describe('asset ids', () => {
  it('are 12 base62 characters: 7 encode the milliseconds since 2019-07-23, 5 are random', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0, 123);
    const id = generateAssetId(now);
    expect(id).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(decodeTime(id)).toBe(now - ID_EPOCH_MS);
    expect(generateAssetId(ID_EPOCH_MS).slice(0, 7)).toBe('0000000');
  });

  it('sort by creation time (the alphabet is in code order)', () => {
    fc.assert(
      fc.property(fc.integer({ min: ID_EPOCH_MS, max: ID_EPOCH_MS + 62 ** 7 - 2 }), fc.integer({ min: 1, max: 10 ** 9 }), (t, dt) => {
        const later = Math.min(t + dt, ID_EPOCH_MS + 62 ** 7 - 1);
        return generateAssetId(t).slice(0, 7) < generateAssetId(later).slice(0, 7) || later === t;
      }),
    );
  });

  it('never repeat within a process, even thousands in one millisecond, and stay in creation order', () => {
    const now = Date.UTC(2026, 10, 25, 12, 0, 0, 0);
    const ids = Array.from({ length: 50_000 }, () => generateAssetId(now));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(ids.every((id) => isValidAssetId(id))).toBe(true);
  });

  it('validation checks length and alphabet, never truncates', () => {
    expect(isValidAssetId(generateAssetId())).toBe(true);
    for (const bad of ['', 'abc', '0123456789ABC', '01234567890_', '01234567890é', 12 as unknown as string, null]) expect(isValidAssetId(bad)).toBe(false);
  });

  it('validation takes what ID_PATTERN matches, and nothing else', () => {
    // Near-ids: 12 characters (or 11, 13) from the alphabet and its neighbours in code order, and beyond ASCII.
    const near = fc.constantFrom(...ID_ALPHABET, '/', ':', '@', '[', '`', '{', '\x7f', '\x80', 'é', '０', '\n', '\u0130');
    const text = fc.oneof(
      fc.array(near, { minLength: 11, maxLength: 13 }).map((chars) => chars.join('')),
      fc.string({ minLength: 12, maxLength: 12 }),
      fc.string(),
    );
    fc.assert(
      fc.property(text, (value) => expect(isValidAssetId(value)).toBe(ID_PATTERN.test(value))),
      { numRuns: 5000 },
    );
  });
});
