// A one-off measure, not part of `npm run bench`: the 2-level drilldown of the bench on SQLite (a row
// store, as the embedded hit store was) over the same hits, against DuckDB on the bench's file.
// Run after `npm run bench` made the data set (same BENCH_DATA_DIR and BENCH_QUERY_HITS):
//   node -r ./tools/register.js tools/bench/reporting-queries/row-store.ts
// The SQLite table is the narrowest that answers the query (the columns it reads, with the old
// store's primary key and (account, time) index): the row store's best case.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DuckDBInstance } from '@duckdb/node-api';
import { cachedDataset } from './dataset';
import { benchQueries } from './queries';

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

async function main(): Promise<void> {
  const dataset = cachedDataset(HITS);
  if (!dataset) throw new Error(`no cached data set of ${HITS} hits: run BENCH_ONLY=queries npm run bench first`);
  const query = benchQueries(dataset, ['none'])[1];
  const statements = query.engine(0);
  const duck = await DuckDBInstance.create(join(dataset.dataDir, 'reporting.duckdb'), { access_mode: 'READ_ONLY' });
  const connection = await duck.connect();
  const dir = mkdtempSync(join(tmpdir(), 'funnel-row-store-'));
  try {
    const duckTimes: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      for (const s of statements) await connection.runAndReadAll(s.sql, s.params);
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
          const rows = db.prepare(sql).all(...s.params.map((p) => (typeof p === 'bigint' ? Number(p) : p))) as { rows_total?: number }[];
          if (n === 0) rowsTotal = rows[0]?.rows_total ?? 0;
        }
        return performance.now() - started;
      });
    // The planner's choice (the (account, time) index for the window), and a plain scan of the table.
    const indexed = sqliteRuns('FROM hits');
    const scanned = sqliteRuns('FROM hits NOT INDEXED');
    db.close();
    const list = (times: number[]) => `median ${median(times).toFixed(0)} ms (${times.map((t) => t.toFixed(0)).join(', ')})`;
    console.log(`${query.name} over ${HITS.toLocaleString('en-US')} hits (23 of 30 days selected), rowsTotal ${rowsTotal}`);
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
