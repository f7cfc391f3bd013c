import { jsonInSlices } from './json-in-slices';

describe('jsonInSlices', () => {
  it('gives the text JSON.stringify gives, in pieces, yielding between the slices of a long array', async () => {
    const rows = Array.from({ length: 3500 }, (_, i) => ({ hitId: `h${i}`, payout: i / 4, skipped: undefined, nested: [i, null, 'x"y'] }));
    const values: unknown[] = [
      { hits: rows, postbackCalls: 'all', overridePayout: null, empty: [], big: Array.from({ length: 2001 }, (_, i) => i), when: new Date(0) },
      [1, 'two', { three: 3 }],
      'text',
      7,
      null,
      { hits: [] },
    ];
    for (const value of values) {
      let yields = 0;
      const pieces = await jsonInSlices(value, async () => void (yields += 1));
      expect(pieces.join('')).toBe(JSON.stringify(value));
      if (value === values[0]) expect(yields).toBe(3 + 2);
    }
  });
});
