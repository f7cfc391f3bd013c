import { DuckDBInstance } from '@duckdb/node-api';
import type { IncomingLogStore } from './incoming-log-store';
import { DuckDbIncomingLogStore } from './duckdb-incoming-log-store';
import { describeIncomingLogStoreContract } from './incoming-log-store.contract';

/** The contract on DuckDB, each test on a fresh in-memory database. */
describeIncomingLogStoreContract('DuckDbIncomingLogStore', async (): Promise<IncomingLogStore> => {
  const instance = await DuckDBInstance.create(':memory:');
  const store = await DuckDbIncomingLogStore.on(instance);
  return {
    received: (e) => store.received(e),
    resolved: (e) => store.resolved(e),
    find: (q, t) => store.find(q, t),
    close: async () => {
      await store.close();
      instance.closeSync();
    },
  };
});

describe('DuckDbIncomingLogStore on a database of the first version (one keyed row per postback)', () => {
  it('shows the rows of the keyed table after opening, and leaves no keyed table behind', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    await connection.run(`CREATE TABLE incoming_postback_log (
      postback_key VARCHAR PRIMARY KEY, account_id VARCHAR NOT NULL, postback_id VARCHAR NOT NULL, time_ms BIGINT NOT NULL,
      source VARCHAR NOT NULL, hit_id VARCHAR NOT NULL, transaction_id VARCHAR NOT NULL, revenue VARCHAR NOT NULL,
      payout VARCHAR NOT NULL, ip VARCHAR NOT NULL, outcome VARCHAR NOT NULL, reason VARCHAR, job_id VARCHAR,
      id_funnel VARCHAR NOT NULL, id_traffic_source VARCHAR NOT NULL, updated_ms BIGINT NOT NULL)`);
    await connection.run(`INSERT INTO incoming_postback_log VALUES
      ('acc/pb1', 'acc', 'pb1', 1700000000000, 'postback', 'hit1', 'T1', '2.5', '2.5', '10.0.0.1', 'applied', NULL, 'job1', 'f1', 'ts1', 1700000000500)`);
    const store = await DuckDbIncomingLogStore.on(instance);
    try {
      const page = await store.find({ accountId: 'acc', startMs: 1_699_999_000_000, endMs: 1_700_001_000_000, start: 0, length: 10 });
      expect(page).toEqual({
        rowsTotal: 1,
        rows: [
          {
            time: new Date(1_700_000_000_000).toISOString(),
            postbackId: 'pb1',
            source: 'postback',
            hitId: 'hit1',
            transactionId: 'T1',
            revenue: '2.5',
            payout: '2.5',
            ip: '10.0.0.1',
            outcome: 'applied',
            reason: null,
            jobId: 'job1',
            idFunnel: 'f1',
            idTrafficSource: 'ts1',
            updatedAt: new Date(1_700_000_000_500).toISOString(),
          },
        ],
      });
      const left = await connection.runAndReadAll(`SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = 'incoming_postback_log'`);
      expect(left.getRowObjectsJS()[0]['n']).toBe(0);
    } finally {
      await store.close();
      connection.closeSync();
      instance.closeSync();
    }
  });
});
