import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbPostbackLogStore } from './duckdb-postback-log-store';
import { describePostbackLogStoreContract, expectTimeLimitOverAMillionRows } from './postback-log-store.contract';

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
      await expectTimeLimitOverAMillionRows(store);
    } finally {
      await store.close();
    }
  }, 60_000);
});
