import { contractHit } from './hit-store.contract';
import { INGEST_ERRORS_LISTED, INGEST_INVALID_LISTED, ingestHits } from './ingest-hits';
import { openTempHitStore } from './duckdb/temp-hit-store';

describe('ingestHits', () => {
  it('stores the valid hits, ignores known ids and reports the invalid ones by index and field', async () => {
    const store = await openTempHitStore();
    await store.insertHits([contractHit(1)]);
    const result = await ingestHits(store, [
      contractHit(1),
      contractHit(2),
      { ...contractHit(3), countryCode: 'ZZ' },
      'not a hit',
      { ...contractHit(4), time: '2026-01-10T12:00:00+02:00' },
    ]);
    expect(result).toEqual({
      inserted: 2,
      ignored: 1,
      invalid: [
        { index: 2, errors: [{ field: 'countryCode', message: expect.any(String) }] },
        { index: 3, errors: [{ field: '', message: 'a hit must be an object' }] },
      ],
      invalidCount: 2,
    });
    expect((await store.getHits('ACCOUNT00001', [contractHit(4).hitId]))[0].time).toBe('2026-01-10T10:00:00.000Z');
    await store.close();
  });

  it('lists at most INGEST_INVALID_LISTED invalid hits and INGEST_ERRORS_LISTED errors each, and counts them all', async () => {
    const store = await openTempHitStore();
    const noisy = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`extra${i}`, i]));
    const inputs = [contractHit(1), ...Array.from({ length: 250 }, () => ({ ...contractHit(2), ...noisy })), contractHit(3)];
    const result = await ingestHits(store, inputs);
    expect(result.inserted).toBe(2);
    expect(result.invalidCount).toBe(250);
    expect(result.invalid.map((entry) => entry.index)).toEqual(Array.from({ length: INGEST_INVALID_LISTED }, (_, i) => i + 1));
    expect(result.invalid[0].errors).toHaveLength(INGEST_ERRORS_LISTED);
    expect(result.invalid[0].errors[0]).toEqual({ field: 'extra0', message: 'is not a hit field' });
    await store.close();
  });

  it('stores a cost and payouts sent as JSON numbers as exact decimal text (reporting.hits.ingest, hits:import)', async () => {
    const store = await openTempHitStore();
    const hit = { ...contractHit(1), cost: 0.35, conversions: [{ transactionId: 'T1', payout: 12.5, time: '2026-01-10T12:05:00Z' }] };
    expect(await ingestHits(store, [hit])).toEqual({ inserted: 1, ignored: 0, invalid: [], invalidCount: 0 });
    const [stored] = await store.getHits('ACCOUNT00001', [hit.hitId]);
    expect([stored.cost, stored.conversions.map((c) => c.payout)]).toEqual(['0.35', ['12.5']]);
    await store.close();
  });
});
