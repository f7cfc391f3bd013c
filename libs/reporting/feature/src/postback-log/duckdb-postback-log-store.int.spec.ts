import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbPostbackLogStore } from './duckdb-postback-log-store';
import { describePostbackLogStoreContract } from './postback-log-store.contract';

/** The contract on DuckDB, each test on a fresh in-memory database. */
describePostbackLogStoreContract('DuckDbPostbackLogStore', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  return DuckDbPostbackLogStore.on(await instance.connect(), () => instance.closeSync());
});
