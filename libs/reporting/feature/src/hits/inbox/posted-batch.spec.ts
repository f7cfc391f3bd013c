import { aHit } from '@funnel/reporting-domain';
import { packPostedBatch, unpackPostedBatch } from './posted-batch';

describe('the text of a posted batch of hits', () => {
  const visitorOf = (n: number) => ({ ...aHit().visitor, userAgent: `Mozilla/5.0 (visitor ${n}) ${'x'.repeat(200)}`, city: `City ${n}` });

  it('reads back every input as posted, in order, when the hits of each request share a visitor', () => {
    const requests = [visitorOf(1), visitorOf(2), visitorOf(3)].map((visitor, r) =>
      Array.from({ length: 4 }, (_, i) => aHit({ hitId: `HIT${r}${i}`.padEnd(12, '0'), visitor })),
    );
    const inputs = requests.flat();
    expect(unpackPostedBatch(packPostedBatch(inputs))).toEqual(inputs);
  });

  it('writes a visitor shared by several hits once, and the field names once per batch', () => {
    const visitor = visitorOf(1);
    const shared = Array.from({ length: 4 }, (_, i) => aHit({ hitId: `HIT${i}`.padEnd(12, '0'), visitor }));
    const text = packPostedBatch(shared);
    expect(text.split('(visitor 1)')).toHaveLength(2);
    expect(text.split('"idTrafficSource"')).toHaveLength(2);
    expect(text.length).toBeLessThan(JSON.stringify(shared).length * 0.5);
  });

  it('gives back what JSON would for hits of other fields: each input with its own fields, the missing and undefined ones left out', () => {
    const visitor = visitorOf(1);
    const { cost: _cost, ...withoutCost } = aHit({ hitId: 'HIT000000002', visitor });
    const inputs = [
      aHit({ hitId: 'HIT000000001', visitor }),
      withoutCost,
      { ...aHit({ hitId: 'HIT000000003', visitor: { city: 'X' } as never }), extra: [1, { a: 2 }], gone: undefined },
    ];
    expect(unpackPostedBatch(packPostedBatch(inputs))).toStrictEqual(JSON.parse(JSON.stringify(inputs)));
  });

  it('keeps inputs that are not hits with a visitor object exactly as posted, for ingest to refuse', () => {
    const inputs = [1, 'text', null, [1, 2], { hitId: 'A', visitor: 7 }, { hitId: 'B' }, { hitId: 'C', visitor: null }];
    expect(unpackPostedBatch(packPostedBatch(inputs))).toEqual(inputs);
  });

  it('keeps a field named __proto__ as a field', () => {
    const inputs = [JSON.parse('{"hitId":"A","__proto__":{"x":1},"visitor":{}}'), { hitId: 'B', visitor: JSON.parse('{"__proto__":{"y":2}}') }];
    const back = unpackPostedBatch(packPostedBatch(inputs)) as Record<string, unknown>[];
    expect(Object.keys(back[0])).toContain('__proto__');
    expect(Object.keys(back[1]['visitor'] as object)).toEqual(['__proto__']);
  });

  it('reads batches written as a JSON array of hits (before this format)', () => {
    const inputs = [aHit({ hitId: 'HIT000000001' }), aHit({ hitId: 'HIT000000002' })];
    expect(unpackPostedBatch(JSON.stringify(inputs))).toEqual(inputs);
  });
});
