import { aHit } from '@funnel/reporting-domain';
import type { DuckDbHitStore } from './duckdb-hit-store';
import { openTempHitStore } from './temp-hit-store';
import { MAX_RANGES } from './time-ranges';

const ACCOUNT = 'ACCOUNT00001';
const HOUR = 3_600_000;
const start = Date.UTC(2026, 0, 1);

// Hits in clusters hours to weeks apart, more clusters than a statement names spans, and hits between them not named.
const named = Array.from({ length: MAX_RANGES + 4 }, (_, cluster) =>
  [0, 1, 2].map((n) =>
    aHit({
      hitId: `HIT${String(cluster * 10 + n).padStart(9, '0')}`,
      accountId: ACCOUNT,
      time: new Date(start + cluster * cluster * 6 * HOUR + n * 1000).toISOString(),
    }),
  ),
).flat();
const between = Array.from({ length: 40 }, (_, n) =>
  aHit({ hitId: `OTHER${String(n).padStart(7, '0')}`, accountId: ACCOUNT, time: new Date(start + n * 3 * HOUR + 1800_000).toISOString() }),
);

describe('DuckDbHitStore: reads and updates of hits far apart in time (several time spans)', () => {
  let store: DuckDbHitStore;
  beforeAll(async () => {
    store = await openTempHitStore();
    await store.insertHits([...named, ...between]);
  });
  afterAll(() => store.close());

  it('reads and updates every hit named, and no other', async () => {
    const ids = named.map((hit) => hit.hitId);
    const states = await store.getHitStates(ACCOUNT, [...ids, 'HIT999999999'], { fields: ['conversions'] });
    expect(states.map((state) => state.hitId).sort()).toEqual([...ids].sort());
    const changed = states.map((state) => ({
      ...state,
      conversions: [{ transactionId: `T-${state.hitId}`, payout: '1.5', time: state.time }],
      postbackCalled: true,
    }));
    await store.commitRows(ACCOUNT, 'JOB000000001', changed, [{ rowIndex: 0, outcome: 'applied', hits: changed.length, postbacks: [] }], ['conversions']);
    const after = await store.getHits(ACCOUNT, [...ids, ...between.map((hit) => hit.hitId)]);
    for (const hit of after) {
      if (ids.includes(hit.hitId)) {
        expect(hit.conversions).toEqual([{ transactionId: `T-${hit.hitId}`, payout: '1.5', time: hit.time }]);
        expect(hit.postbackCalled).toBe(true);
      } else {
        expect(hit.conversions).toEqual([]);
        expect(hit.postbackCalled).toBe(false);
      }
    }
    expect(after).toHaveLength(ids.length + between.length);
  });

  it('finds every hit named as stored when they are sent again (the ingest dedupe reads the same spans)', async () => {
    const again = [...named, between[0], aHit({ hitId: 'NEWHIT000001', accountId: ACCOUNT, time: new Date(start + 5 * HOUR).toISOString() })];
    expect(await store.insertHits(again)).toEqual({ inserted: 1, ignored: named.length + 1 });
  });
});
