import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { ClickHouseHitStore } from '@funnel/reporting-feature';
import { openChdbClient, whyChdbIsUnavailable } from '@funnel/testing';
import { warehouseRunner } from './engines/warehouse';
import { reportQueriesContract } from './report-queries.contract';
import { storeTestWarehouse } from './testing/warehouse-fixture';
import { windowConversionsContract } from './window-conversions.contract';

// The ClickHouse dialect on the ClickHouse hit store (its own tables, hits written through insertHits):
// against the server at CLICKHOUSE_URL when given, else against ClickHouse embedded (chdb), so the
// dialect is proven here, not assumed. Where neither can run, the suite says so as a todo.
const url = process.env.CLICKHOUSE_URL;
const unavailable = url ? undefined : whyChdbIsUnavailable();

if (unavailable) {
  console.log(`report queries on ClickHouse: not run (${unavailable}); set CLICKHOUSE_URL to run them against a server`);
  it.todo(`report queries contract on ClickHouse: not run (${unavailable})`);
} else {
  const name = url ? 'ClickHouse hit store at CLICKHOUSE_URL' : 'ClickHouse hit store on ClickHouse embedded (chdb)';
  const openStore = async () => {
    let client: ClickHouseClient;
    let release: () => Promise<void>;
    if (url) {
      client = createClient({ url, request_timeout: 60_000 });
      release = () => client.close();
    } else {
      const chdb = await openChdbClient();
      client = chdb.client;
      release = chdb.close;
    }
    const prefix = `report_queries_${process.pid}_${++opened}_`;
    const store = await ClickHouseHitStore.connect({ client, tablePrefix: prefix });
    return storeTestWarehouse(store, async () => {
      await store.close();
      for (const table of ['hits', 'job_batches']) await client.command({ query: `DROP TABLE IF EXISTS ${prefix}${table} SYNC` });
      await release();
    });
  };
  let opened = 0;
  reportQueriesContract(name, openStore);
  windowConversionsContract(name, openStore);

  it('stops a query past its time limit (max_execution_time) and answers 503 REPORTING.QUERY_TIMEOUT', async () => {
    const chdb = url ? undefined : await openChdbClient();
    const client = chdb?.client ?? createClient({ url: url!, request_timeout: 60_000 });
    try {
      const store = await ClickHouseHitStore.connect({ client, tablePrefix: `report_timeout_${process.pid}_` });
      const started = performance.now();
      await expect(
        warehouseRunner(store.warehouse, 1000).rows({ sql: 'SELECT sum(number) AS n FROM numbers(1000000000000)', params: {} }),
      ).rejects.toMatchObject({
        status: 503,
        code: 'REPORTING.QUERY_TIMEOUT',
      });
      expect(performance.now() - started).toBeLessThan(15_000);
      await store.close();
      for (const table of ['hits', 'job_batches']) await client.command({ query: `DROP TABLE IF EXISTS report_timeout_${process.pid}_${table} SYNC` });
    } finally {
      await (chdb ? chdb.close() : client.close());
    }
  });
}
