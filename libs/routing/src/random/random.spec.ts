import { ID_PATTERN } from '@funnel/contracts';
import fc from 'fast-check';
import { seededIds } from './seeded-ids';
import { seededRandom } from './seeded-random';
import { cumulativeOf, pick, sharesOf } from './shares';

describe('seeded randomness', () => {
  it('draws the same numbers in [0, 1) for the same seed, others for another', () => {
    const draw = (seed: string | number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw('abc')).toEqual(draw('abc'));
    expect(draw(7)).not.toEqual(draw(8));
    expect(draw('7')).not.toEqual(draw(7));
    fc.assert(fc.property(fc.oneof(fc.integer(), fc.string()), (seed) => draw(seed).every((x) => x >= 0 && x < 1)));
  });

  it('draws ids in the asset-id format whose 7 time characters come from the time', () => {
    const time = Date.UTC(2026, 0, 1);
    const ids = seededIds(seededRandom(1), time);
    const drawn = Array.from({ length: 100 }, ids);
    expect(drawn.every((id) => ID_PATTERN.test(id))).toBe(true);
    expect(new Set(drawn.map((id) => id.slice(0, 7))).size).toBe(1);
    expect(new Set(drawn).size).toBe(100);
    expect(Array.from({ length: 3 }, seededIds(seededRandom(1), time))).toEqual(drawn.slice(0, 3));
  });
});

describe('shares', () => {
  it('normalise weights that do not sum to 1, and give equal shares when all are zero', () => {
    expect(sharesOf([2, 6])).toEqual([0.25, 0.75]);
    expect(sharesOf([0, 0, 0, 0])).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(sharesOf([-1, 1])).toEqual([0, 1]);
  });

  it('never pick an entry with a zero share', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(0, 0.1, 0.3, 1 / 3), { minLength: 1, maxLength: 6 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (weights, drawn) => {
          const shares = sharesOf(weights);
          expect(shares[pick(cumulativeOf(shares), drawn)]).toBeGreaterThan(0);
        },
      ),
    );
  });
});
