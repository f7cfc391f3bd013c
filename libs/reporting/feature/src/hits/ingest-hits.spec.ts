import { contractHit } from './hit-store.contract';
import { ingestHits } from './ingest-hits';
import { SqliteHitStore } from './sqlite-hit-store';

describe('ingestHits', () => {
  it('stores the valid hits, ignores known ids and reports the invalid ones by index and field', async () => {
    const store = new SqliteHitStore({ filename: ':memory:' });
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
    });
    expect((await store.getHits('ACCOUNT00001', [contractHit(4).hitId]))[0].time).toBe('2026-01-10T10:00:00.000Z');
    await store.close();
  });
});
