import { DuckDBInstance } from '@duckdb/node-api';
import { describeIntegrationDeliveryLogStoreContract } from './delivery-log-store.contract';
import { DuckDbIntegrationDeliveryLogStore } from './duckdb-delivery-log-store';

/** The contract on DuckDB, each test on a fresh in-memory database. */
describeIntegrationDeliveryLogStoreContract('DuckDbIntegrationDeliveryLogStore', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  const store = await DuckDbIntegrationDeliveryLogStore.on(instance);
  return {
    logged: (entries) => store.logged(entries),
    find: (query, timeoutMs) => store.find(query, timeoutMs),
    close: async () => {
      await store.close();
      instance.closeSync();
    },
  };
});
