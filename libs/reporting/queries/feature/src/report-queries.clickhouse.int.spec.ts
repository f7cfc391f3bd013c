import { createClient } from '@clickhouse/client';
import { reportQueriesContract } from './report-queries.contract';
import { openClickHouseTestWarehouse } from './testing/warehouse-fixture';

// The ClickHouse dialect against a server at CLICKHOUSE_URL (none runs here: without it the suite is
// reported as a todo, not as passing). chdb (ClickHouse embedded) runs it once @funnel/testing's
// openChdbClient is on this branch: pass its client to openClickHouseTestWarehouse instead.
const url = process.env.CLICKHOUSE_URL;

if (url) {
  const client = createClient({ url, request_timeout: 60_000 });
  afterAll(() => client.close());
  reportQueriesContract(`ClickHouse at CLICKHOUSE_URL`, () => openClickHouseTestWarehouse(client, `report_queries_test_${process.pid}`));
} else {
  it.todo('report queries contract on ClickHouse: set CLICKHOUSE_URL (a ClickHouse server) to run it');
}
