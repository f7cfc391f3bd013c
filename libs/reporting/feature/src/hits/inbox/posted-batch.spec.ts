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

  it('writes a visitor shared by several hits once', () => {
    const visitor = visitorOf(1);
    const shared = Array.from({ length: 4 }, (_, i) => aHit({ hitId: `HIT${i}`.padEnd(12, '0'), visitor }));
    const text = packPostedBatch(shared);
    expect(text.split('(visitor 1)')).toHaveLength(2);
    expect(text.length).toBeLessThan(JSON.stringify(shared).length * 0.7);
  });

  it('keeps inputs that are not hits with a visitor object exactly as posted, for ingest to refuse', () => {
    const inputs = [1, 'text', null, [1, 2], { hitId: 'A', visitor: 7 }, { hitId: 'B' }, { hitId: 'C', visitor: null }];
    expect(unpackPostedBatch(packPostedBatch(inputs))).toEqual(inputs);
  });

  it('reads batches written as a JSON array of hits (before this format)', () => {
    const inputs = [aHit({ hitId: 'HIT000000001' }), aHit({ hitId: 'HIT000000002' })];
    expect(unpackPostedBatch(JSON.stringify(inputs))).toEqual(inputs);
  });
});
