import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbWebhookLogStore } from './duckdb-webhook-log-store';
import { describeWebhookLogStoreContract } from './webhook-log-store.contract';

/** The contract on DuckDB, each test on a fresh in-memory database. */
describeWebhookLogStoreContract('DuckDbWebhookLogStore', async () => {
  const instance = await DuckDBInstance.create(':memory:');
  return DuckDbWebhookLogStore.on(instance, () => instance.closeSync());
});
