import { availableParallelism } from 'node:os';
import type { CallerContext } from '@funnel/contracts';
import { fromMicros, toMicros } from '@funnel/reporting-domain';
import { openTempHitStore } from '@funnel/reporting-feature';
import { warehouseRunner } from './engines/warehouse';
import { reportQueriesContract } from './report-queries.contract';
import { NO_ASSET_NAMES } from './service/asset-names';
import { ReportQueries } from './service/report-queries';
import { ACCOUNT, generateHits } from './testing/generated-hits';
import { openDuckDbTestWarehouse, storeTestWarehouse } from './testing/warehouse-fixture';
import { windowConversionsContract } from './window-conversions.contract';

// The DuckDB dialect on the embedded hit store as standalone runs it (hits written through insertHits),
// and on a bare table of WAREHOUSE_COLUMNS (the columns are the contract, not the store's code).
reportQueriesContract('DuckDB hit store (embedded)', async () => storeTestWarehouse(await openTempHitStore()));
reportQueriesContract('DuckDB table of WAREHOUSE_COLUMNS', openDuckDbTestWarehouse);
windowConversionsContract('DuckDB hit store (embedded)', async () => storeTestWarehouse(await openTempHitStore()));

describe('report queries beside the DuckDB writer', () => {
  const context: CallerContext = { accountId: ACCOUNT, userId: 'u1', permissions: ['reporting:read'], correlationId: 'c1' };

  it('answer from the committed hits while a writer holds an open transaction over every hit', async () => {
    const test = await openDuckDbTestWarehouse();
    try {
      const hits = generateHits();
      await test.insert(hits);
      const mine = hits.filter((h) => h.accountId === ACCOUNT);
      if (test.warehouse.engine !== 'duckdb') throw new Error('a DuckDB warehouse');
      const writer = await test.warehouse.connect();
      await writer.run('BEGIN TRANSACTION');
      await writer.run('UPDATE hits SET cost = cost + 1');
      const queries = new ReportQueries(warehouseRunner(test.warehouse), NO_ASSET_NAMES);
      const report = await queries.drilldown(context, {
        timeStart: new Date(Math.min(...mine.map((h) => Date.parse(h.time)))).toISOString(),
        timeEnd: new Date(Math.max(...mine.map((h) => Date.parse(h.time))) + 1).toISOString(),
        groupings: [{ groupBy: 'funnel' }],
        metrics: ['Cost'],
      });
      const committed = fromMicros(mine.reduce((sum, h) => sum + toMicros(h.cost), 0n));
      expect(toMicros(String(report.totals.cells[1].raw))).toBe(toMicros(committed));
      await writer.run('ROLLBACK');
      writer.closeSync();
    } finally {
      await test.close();
    }
  });

  it("the store's queries run on every core (up to two) while its writer connection is open", async () => {
    const store = await openTempHitStore();
    try {
      if (store.warehouse.engine !== 'duckdb') throw new Error('a DuckDB warehouse');
      const connection = await store.warehouse.connect();
      const threads = Number((await connection.runAndReadAll("SELECT current_setting('threads') AS threads")).getRowObjectsJson()[0].threads);
      connection.closeSync();
      expect(threads).toBeGreaterThanOrEqual(Math.min(2, availableParallelism()));
    } finally {
      await store.close();
    }
  });

  it('stops a query past its time limit (DuckDB interrupts it) and answers 503 REPORTING.QUERY_TIMEOUT, the connection free again', async () => {
    const store = await openTempHitStore();
    try {
      const runner = warehouseRunner(store.warehouse, 200);
      const started = performance.now();
      await expect(runner.rows({ sql: 'SELECT count(*) AS n FROM range(1000000000000) a WHERE a.range % 7 = 3', params: {} })).rejects.toMatchObject({
        status: 503,
        code: 'REPORTING.QUERY_TIMEOUT',
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(await runner.rows({ sql: 'SELECT 1 AS one', params: {} })).toEqual([{ one: 1 }]);
    } finally {
      await store.close();
    }
  });
});
