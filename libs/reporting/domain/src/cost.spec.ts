import fc from 'fast-check';
import { segmentCosts, spreadCost } from './cost';
import { decimalPlaces, fromMicros, toMicros } from './decimal';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `HIT${String(i).padStart(9, '0')}`);

describe('cost segments', () => {
  it.each([
    ['10', 3, ['3.34', '3.33', '3.33']],
    ['0.02', 3, ['0.01', '0.01', '0']],
    ['1', 4, ['0.25', '0.25', '0.25', '0.25']],
    ['0', 2, ['0', '0']],
    ['1.001', 3, ['0.334', '0.334', '0.333']],
  ])('spreads %s over %s entrances as %j', (cost, n, shares) => expect([...spreadCost(cost, ids(n)).values()]).toEqual(shares));

  it('gives the left-over cents to the first hits in hitId order, whatever order they come in', () => {
    const shares = spreadCost('1', ['HITC', 'HITA', 'HITB']);
    expect(Object.fromEntries(shares)).toEqual({ HITA: '0.34', HITB: '0.33', HITC: '0.33' });
  });

  it('spreads nothing over no entrances', () => expect(spreadCost('5', []).size).toBe(0));

  it('adds up exactly to the segment cost, shares differing by one unit at most', () =>
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 1, max: 500 }), fc.constantFrom(2, 4, 6), (units, n, places) => {
        const text = fromMicros(units * 10n ** BigInt(6 - places));
        const shares = [...spreadCost(text, ids(n)).values()].map(toMicros);
        expect(shares.reduce((a, b) => a + b, 0n)).toBe(toMicros(text));
        const min = shares.reduce((a, b) => (a < b ? a : b));
        const max = shares.reduce((a, b) => (a > b ? a : b));
        const unit = 10n ** BigInt(6 - Math.max(2, decimalPlaces(text)));
        expect(max - min <= unit).toBe(true);
        shares.forEach((share) => expect(share % unit).toBe(0n));
      }),
    ));

  it('sets each entrance to the cost with costPerEntrance', () =>
    expect(Object.fromEntries(segmentCosts({ cost: '0.150', costType: 'costPerEntrance' }, ['A', 'B']))).toEqual({ A: '0.15', B: '0.15' }));
});
