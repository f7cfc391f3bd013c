import fc from 'fast-check';
import { FIELD_NAME_PATTERN, isFieldName, isRouteKey, ROUTE_KEY_PATTERN } from './rules';

describe('route keys and field names', () => {
  // Strings close to the patterns: their own characters, a few others, around the 64-character limit.
  const near = (alphabet: string) =>
    fc.oneof(
      fc.string({ unit: fc.constantFrom(...alphabet, 'A', 'é', '.', '\n', '\u0000'), maxLength: 70 }),
      fc.string({ unit: fc.constantFrom(...alphabet), minLength: 60, maxLength: 70 }),
      fc.string({ unit: 'grapheme', maxLength: 10 }),
    );

  it('isRouteKey is ROUTE_KEY_PATTERN', () => {
    fc.assert(
      fc.property(near('az09_-'), (text) => expect(isRouteKey(text)).toBe(ROUTE_KEY_PATTERN.test(text))),
      { numRuns: 2000 },
    );
    expect([isRouteKey('us_1'), isRouteKey(''), isRouteKey('a'.repeat(65)), isRouteKey(5), isRouteKey('Us')]).toEqual([true, false, false, false, false]);
  });

  it('isFieldName is FIELD_NAME_PATTERN', () => {
    fc.assert(
      fc.property(near('aZ09_ -'), (text) => expect(isFieldName(text)).toBe(FIELD_NAME_PATTERN.test(text))),
      { numRuns: 2000 },
    );
    expect([isFieldName('utm source-2'), isFieldName(''), isFieldName('a.b'), isFieldName(null)]).toEqual([true, false, false, false]);
  });
});
