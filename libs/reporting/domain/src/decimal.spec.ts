import fc from 'fast-check';
import { applyPercent, decimalPlaces, fromMicros, isCanonicalNonNegative, normalizeDecimal, toMicros } from './decimal';

describe('exact decimals (micro-units in a bigint)', () => {
  it.each([
    ['0', 0n],
    ['12.5', 12_500_000n],
    ['0.000001', 1n],
    ['999999999999.999999', 999_999_999_999_999_999n],
    ['-1', -1_000_000n],
  ])('reads %s as %s micro-units', (text, micros) => expect(toMicros(text)).toBe(micros));

  it.each(['', '1.', '.5', '1.0000001', '1e3', 'abc', ' 1'])('refuses %j', (text) => expect(() => toMicros(text)).toThrow(RangeError));

  it.each([
    ['1.50', '1.5'],
    ['007', '7'],
    ['0.000', '0'],
    ['10.000100', '10.0001'],
  ])('writes %s as %s', (text, canonical) => expect(normalizeDecimal(text)).toBe(canonical));

  it('gives the decimals a value carries', () => {
    expect(decimalPlaces('1.50')).toBe(1);
    expect(decimalPlaces('3')).toBe(0);
    expect(decimalPlaces('0.123456')).toBe(6);
  });

  it('round-trips every micro amount', () =>
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), (micros) => expect(toMicros(fromMicros(micros))).toBe(micros))));

  it('keeps a canonical text as it is and rewrites any other form of the same amount to it', () =>
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.nat(3), fc.nat(3), (micros, leadingZeros, trailingZeros) => {
        const canonical = fromMicros(micros);
        expect(isCanonicalNonNegative(canonical)).toBe(true);
        expect(normalizeDecimal(canonical)).toBe(canonical);
        const decimals = canonical.includes('.') ? canonical.split('.')[1].length : 0;
        const padded = `${'0'.repeat(leadingZeros)}${canonical}${decimals + trailingZeros <= 6 && trailingZeros > 0 ? `${decimals === 0 ? '.' : ''}${'0'.repeat(trailingZeros)}` : ''}`;
        expect(normalizeDecimal(padded)).toBe(canonical);
      }),
    ));

  it.each(['01', '1.50', '1.', '0.0', '-1', '-0', '1.0000001', ' 1'])('does not take %j for a canonical amount', (text) =>
    expect(isCanonicalNonNegative(text)).toBe(false),
  );

  it.each([
    ['10', 100, '10'],
    ['10', 50, '5'],
    ['10', 500, '50'],
    ['10', 0, '0'],
    ['0.000001', 50, '0.000001'],
    ['0.000003', 50, '0.000002'],
    ['1.23', 33.5, '0.41205'],
  ])('%s at %s %% is %s (rounded half up to 6 decimals)', (amount, percent, expected) =>
    expect(fromMicros(applyPercent(toMicros(amount), percent))).toBe(expected),
  );
});
