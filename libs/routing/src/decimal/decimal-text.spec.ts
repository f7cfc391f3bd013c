import { applyPercent, isDecimalText, numberText } from './decimal-text';

describe('decimal text', () => {
  it('scales a cost by a percentage exactly, rounding half up to 6 decimals', () => {
    expect(applyPercent('0.25', 100)).toBe('0.25');
    expect(applyPercent('0.10', 110)).toBe('0.11');
    expect(applyPercent('1', 0)).toBe('0');
    expect(applyPercent('0.000001', 50)).toBe('0.000001');
    expect(applyPercent('12.5', 33.3333)).toBe('4.166663');
  });

  it('writes a cost kept at 100% in canonical form, whatever form it came in', () => {
    expect(applyPercent('0.02', 100)).toBe('0.02');
    expect(applyPercent('0.020', 100)).toBe('0.02');
    expect(applyPercent('007', 100)).toBe('7');
    expect(applyPercent('0', 100)).toBe('0');
    expect(applyPercent('0.0', 100)).toBe('0');
    expect(applyPercent(' 1.5 ', 100)).toBe('1.5');
    expect(applyPercent('1.0000005', 100)).toBe('1.000001');
    expect(applyPercent('123456789012345.5', 100)).toBe('123456789012345.5');
  });

  it('tells decimals from other text, and writes payouts', () => {
    expect(isDecimalText(' 2 ')).toBe(true);
    expect(isDecimalText('1.')).toBe(false);
    expect(isDecimalText('1234567890123456')).toBe(false);
    expect(isDecimalText('0.5')).toBe(true);
    expect(isDecimalText('-1')).toBe(false);
    expect(isDecimalText('1e3')).toBe(false);
    expect(numberText(2.5)).toBe('2.5');
    expect(numberText(0.1 + 0.2)).toBe('0.3');
    expect(numberText(undefined)).toBe('0');
  });
});
