import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbPostbackLogStore } from './duckdb-postback-log-store';
import { PostbackLogQueryTimeout } from './postback-log-store';
import { describePostbackLogStoreContract } from './postback-log-store.contract';

/** The contract on DuckDB, each test on a fresh in-memory database. */
describePostbackLogStoreContract('DuckDbPostbackLogStore', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  return DuckDbPostbackLogStore.on(instance, () => instance.closeSync());
});

describe('DuckDbPostbackLogStore: time limit', () => {
  it('interrupts a query past its time limit, and answers the next one', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const store = await DuckDbPostbackLogStore.on(instance, () => instance.closeSync());
    try {
      const fill = await instance.connect();
      await fill.run(`INSERT INTO postback_log
        SELECT 'ACCOUNT00001/JOB' || lpad((i // 1000)::VARCHAR, 9, '0') || ':' || (i % 1000)::VARCHAR, 'ACCOUNT00001', 'JOB' || lpad((i // 1000)::VARCHAR, 9, '0'), i % 1000, 1772323200000 + i, 'HIT' || lpad(i::VARCHAR, 9, '0'),
               'TSOURCE0000' || (i % 7)::VARCHAR, 'FUNNEL00000' || (i % 5)::VARCHAR, 'https://ts.example/pb?i=' || i::VARCHAR, 'postbackUrl',
               CASE WHEN i % 3 = 0 THEN 'delivered' ELSE 'pending' END, 1, NULL, 1772323200000 + i
        FROM range(1000000) t(i)`);
      fill.closeSync();
      const query = {
        accountId: 'ACCOUNT00001',
        startMs: 1772323200000,
        endMs: 1772323200000 + 1_000_000,
        statuses: ['delivered' as const],
        trafficSourceIds: ['TSOURCE00003', 'TSOURCE00004'],
        start: 0,
        length: 1000,
      };
      // A deep page (sorting past 90,000 rows) with a 1 ms limit.
      await expect(store.find({ ...query, start: 90_000 }, 1)).rejects.toBeInstanceOf(PostbackLogQueryTimeout);
      const page = await store.find(query);
      expect(page.rows).toHaveLength(1000);
      expect(page.rowsTotal).toBe(Array.from({ length: 1_000_000 }, (_, i) => i).filter((i) => i % 3 === 0 && [3, 4].includes(i % 7)).length);
    } finally {
      await store.close();
    }
  }, 60_000);
});
