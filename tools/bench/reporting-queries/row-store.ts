// A one-off measure, not part of `npm run bench`: the 2-level drilldown of the bench on SQLite (a row
// store, as the embedded hit store was) over the same hits, against DuckDB on the bench's file.
// Run after `npm run bench` made the data set (same BENCH_DATA_DIR and BENCH_QUERY_HITS):
//   node -r ./tools/register.js tools/bench/reporting-queries/row-store.ts
// The SQLite table is the narrowest that answers the query (the columns it reads, with the old
// store's primary key and (account, time) index): the row store's best case. The SQL is the bench's
// 2-level request written by hand in what both engines understand (the service's SQL is DuckDB's).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { cachedDataset } from './dataset';
import { reportWindow } from './queries';

const HITS = Number(process.env.BENCH_QUERY_HITS ?? 10_000_000);
const COLUMNS = [
  'account_id',
  'hit_id',
  'time_ms',
  'id_traffic_source',
  'country_code',
  'is_entrance',
  'node_type',
  'clicks',
  'conversion_count',
  'revenue',
  'cost',
];
const RUNS = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Traffic source x country, the 13 metrics of the bench's 2-level request, sorted by Entrances, a page of 50 with the exact count; then the totals. */
function twoLevelSql(accountId: string, window: [number, number]): { sql: string; params: (string | number)[] }[] {
  const aggregates = `count(*) FILTER (WHERE is_entrance) AS entrances, count(*) FILTER (WHERE node_type = 'landerGroup') AS lander_views,
    coalesce(sum(clicks) FILTER (WHERE node_type = 'landerGroup'), 0) AS lander_clicks, count(*) FILTER (WHERE node_type = 'offerGroup') AS offer_views,
    coalesce(sum(clicks) FILTER (WHERE node_type = 'offerGroup'), 0) AS offer_clicks, sum(conversion_count) AS conversions, sum(revenue) AS revenue, sum(cost) AS cost`;
  const derived = `revenue - cost AS pl, (revenue - cost) / nullif(cost, 0) AS roi, 1.0 * lander_clicks / nullif(lander_views, 0) AS lander_ctr,
    1.0 * conversions / nullif(entrances, 0) AS cvre, revenue / nullif(entrances, 0) AS epe`;
  const where = 'account_id = ? AND time_ms >= ? AND time_ms < ?';
  const params = [accountId, window[0], window[1]];
  return [
    {
      sql: `SELECT *, ${derived}, count(*) OVER () AS rows_total FROM (SELECT id_traffic_source, country_code, ${aggregates} FROM hits WHERE ${where}
        GROUP BY id_traffic_source, country_code) ORDER BY entrances DESC, id_traffic_source, country_code LIMIT 50`,
      params,
    },
    { sql: `SELECT *, ${derived} FROM (SELECT ${aggregates} FROM hits WHERE ${where})`, params },
  ];
}

async function main(): Promise<void> {
  const dataset = cachedDataset(HITS);
  if (!dataset) throw new Error(`no cached data set of ${HITS} hits: run BENCH_ONLY=queries npm run bench first`);
  const statements = twoLevelSql(dataset.accountId, reportWindow(dataset.shape));
  const duck = await DuckDBInstance.create(join(dataset.dataDir, 'reporting.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await duck.connect();
  const dir = mkdtempSync(join(tmpdir(), 'funnel-row-store-'));
  try {
    const duckTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      for (const s of statements)
        await connection.runAndReadAll(
          s.sql,
          s.params.map((p) => (typeof p === 'number' ? BigInt(p) : p)),
        );
      duckTimes.push(performance.now() - started);
    }

    const db = new Database(join(dir, 'hits.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.exec(`CREATE TABLE hits (account_id TEXT NOT NULL, hit_id TEXT NOT NULL, time_ms INTEGER NOT NULL, id_traffic_source TEXT NOT NULL,
      country_code TEXT NOT NULL, is_entrance INTEGER NOT NULL, node_type TEXT NOT NULL, clicks INTEGER NOT NULL, conversion_count INTEGER NOT NULL,
      revenue REAL NOT NULL, cost REAL NOT NULL, PRIMARY KEY (account_id, hit_id)) WITHOUT ROWID;
      CREATE INDEX hits_by_time ON hits (account_id, time_ms);`);
    const insert = db.prepare(`INSERT INTO hits VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    const loadStarted = performance.now();
    const { startMs, days } = dataset.shape;
    for (let day = 0; day < days; day++) {
      const from = BigInt(startMs + day * 86_400_000);
      const reader = await connection.runAndReadAll(
        `SELECT ${COLUMNS.map((c) => (c === 'is_entrance' ? 'is_entrance::INTEGER' : c === 'revenue' || c === 'cost' ? `${c}::DOUBLE` : c)).join(', ')}
         FROM hits WHERE time_ms >= ? AND time_ms < ?`,
        [from, from + 86_400_000n],
      );
      const rows = reader.getRowsJS();
      db.transaction(() => {
        for (const row of rows) insert.run(...row.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
      })();
    }
    const loadSeconds = (performance.now() - loadStarted) / 1000;

    let rowsTotal = 0;
    /** Three runs of the statements; `from` replaces `FROM hits` (to force a plan). */
    const sqliteRuns = (from: string) =>
      Array.from({ length: 3 }, () => {
        const started = performance.now();
        for (const [n, s] of statements.entries()) {
          const sql = s.sql.replaceAll('FROM hits', from);
          const rows = db.prepare(sql).all(...s.params) as { rows_total?: number }[];
          if (n === 0) rowsTotal = rows[0]?.rows_total ?? 0;
        }
        return performance.now() - started;
      });
    // The planner's choice (the (account, time) index for the window), and a plain scan of the table.
    const indexed = sqliteRuns('FROM hits');
    const scanned = sqliteRuns('FROM hits NOT INDEXED');
    db.close();
    const list = (times: number[]) => `median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`;
    console.log(
      `2-level drilldown (traffic source x country, 13 metrics) over ${HITS.toLocaleString('en-US')} hits (23 of 30 days selected), rowsTotal ${rowsTotal}`,
    );
    console.log(`  DuckDB (the bench's file, ${RUNS} runs): ${list(duckTimes)}`);
    console.log(`  SQLite (narrow table, loaded in ${loadSeconds.toFixed(0)} s), the planner's plan (the time index): ${list(indexed)}`);
    console.log(`  SQLite, a full scan of the table (NOT INDEXED): ${list(scanned)}`);
  } finally {
    connection.closeSync();
    duck.closeSync();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
