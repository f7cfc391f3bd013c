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
