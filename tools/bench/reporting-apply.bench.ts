// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generateAssetId } from '@funnel/contracts';
import { aHit, type Hit, type TrafficSourcePostbackSettings } from '@funnel/reporting-domain';
import { DuckDBInstance } from '@duckdb/node-api';
import { DuckDbHitStore, applyConversions, type ConversionsJobPayload } from '@funnel/reporting-feature';

export interface ReportingApplyResult {
  rowsPerSecond: number;
  /** Rows per second of the baseline: the same hit rows updated with plain SQLite statements, 1,000 per transaction. */
  baselineRowsPerSecond: number;
  /** Rows per second of this process's CPU time (user + system): steadier than wall time on a shared machine. */
  rowsPerCpuSecond: number;
  baselineRowsPerCpuSecond: number;
  rows: number;
  seconds: number;
  /** Hits the warehouse held before the bench's own (see `preload`). */
  preloaded: number;
  /** Rows per job. */
  jobRows: number;
}

/** Wall and CPU seconds `run` takes. */
function timed(run: () => void): Promise<{ seconds: number; cpuSeconds: number }>;
function timed(run: () => Promise<void>): Promise<{ seconds: number; cpuSeconds: number }>;
async function timed(run: () => void | Promise<void>): Promise<{ seconds: number; cpuSeconds: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run();
  const used = process.cpuUsage(cpu);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Rows per job by default: one batch of the applier. */
const JOB_ROWS = 1000;

/**
 * Rows applied per second by the conversions applier on the embedded hit store (DuckDB): `hits` stored hits,
 * `jobs` jobs of `jobRows` rows each (default 1,000: one batch; a larger job reads a batch's hits while the one before commits) on random hits (each a new transaction id; postbackCalls `all` with a
 * postbackUrl source, so every row also decides and builds a postback). The baseline writes the
 * same number of conversion rows to an equal table of hits with one prepared UPDATE per row, 1,000 per
 * transaction: what the applier costs on top of the bare writes.
 *
 * `preload` hits (same account, the year before) are written into the warehouse first, straight
 * through SQL (DuckDB table and hit-key index), so the updates run on a warehouse of that size:
 * `BENCH_APPLY_PRELOAD=10000000 node -r ./tools/register.js tools/bench/reporting-apply.bench.ts`
 * (`BENCH_APPLY_JOB_ROWS=5000` for jobs of 5,000 rows, same number of rows in all; `BENCH_APPLY_OLD_ROWS=1` for jobs
 * whose first row names a preloaded hit, months older than the others: a late conversion of an old click).
 */
export async function reportingApplyRate(hits = 100_000, jobs = 50, preload = 0, jobRows = JOB_ROWS, oldRows = 0): Promise<ReportingApplyResult> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-reporting-apply-'));
  try {
    const accountId = generateAssetId();
    // Ids from distinct milliseconds: unique, unlike a burst of ids drawn in the same few milliseconds.
    const hitIds = Array.from({ length: hits }, (_, n) => generateAssetId(Date.UTC(2026, 0, 1) + n));
    if (preload > 0) await preloadWarehouse(dir, accountId, preload);
    const store = await DuckDbHitStore.open({ dataDir: dir });
    for (let start = 0; start < hits; start += 10_000) {
      await store.insertHits(hitIds.slice(start, start + 10_000).map((hitId, i) => benchHit(accountId, hitId, start + i)));
    }
    // The hits stored before the timer: a read commits the store's open ingest transaction (DuckDB compressing the
    // 100,000 rows, about 0.5 s), which the first job would otherwise pay inside the measure.
    const stored = await store.countHits(accountId, { timeStart: '2026-01-01T00:00:00.000Z', timeEnd: '2027-01-01T00:00:00.000Z' });
    if (stored !== hits) throw new Error(`the warehouse holds ${stored} of the bench's ${hits} hits`);
    const source: TrafficSourcePostbackSettings = {
      idTrafficSource: 'TSOURCE00001',
      postback: { postbackType: 'postbackUrl', postbackCode: 'https://ts.example/pb?cid={external}&payout={payout}&tx={txid}' },
      disableZeroRevenuePostbacks: false,
      outgoingPostbackProbability: 100,
      outgoingRevenueModifier: 100,
    };
    const payloads: ConversionsJobPayload[] = Array.from({ length: jobs }, (_, job) => ({
      postbackCalls: 'all',
      hits: Array.from({ length: jobRows }, (_, row) => ({
        // The first `oldRows` rows of a job name preloaded hits (months older than the others).
        hitId: row < oldRows && preload > 0 ? preloadedHitId(Math.floor(Math.random() * preload)) : hitIds[Math.floor(Math.random() * hits)],
        payout: `${(job * jobRows + row) % 100}.25`,
        transactionId: `T${job}-${row}`,
      })),
    }));
    const deps = { trafficSource: async () => source };

    const measure = await timed(async () => {
      for (const [job, payload] of payloads.entries()) {
        await applyConversions(store, { jobId: `BENCHJOB${job}`, accountId, queuedAt: new Date().toISOString(), payload }, deps);
      }
    });
    await store.close();

    const base = await baseline(join(dir, 'baseline.sqlite'), accountId, hitIds, payloads);
    const rows = jobs * jobRows;
    return {
      rowsPerSecond: rows / measure.seconds,
      baselineRowsPerSecond: rows / base.seconds,
      rowsPerCpuSecond: rows / measure.cpuSeconds,
      baselineRowsPerCpuSecond: rows / base.cpuSeconds,
      rows,
      seconds: measure.seconds,
      preloaded: preload,
      jobRows,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The id of the `n`th preloaded hit (see preloadWarehouse). */
function preloadedHitId(n: number): string {
  return `P${String(n).padStart(11, '0')}`;
}

/** `count` hits of the account in 2025 (one every 3 s), written with SQL into an empty warehouse and its hit-key index. */
async function preloadWarehouse(dir: string, accountId: string, count: number): Promise<void> {
  await (await DuckDbHitStore.open({ dataDir: dir })).close();
  const start = Date.UTC(2025, 0, 1);
  const instance = await DuckDBInstance.create(join(dir, 'reporting.duckdb'));
  const connection = await instance.connect();
  await connection.run(
    `INSERT INTO hits (account_id, hit_id, visitor_id, id_funnel, id_funnel_group, id_traffic_source, id_node, id_page, country_code, ip,
       tf_external, time_ms, is_entrance, cost, postback_called, device_type, os, browser, city, user_agent)
     SELECT $1, 'P' || lpad(i::VARCHAR, 11, '0'), 'V' || lpad((i // 3)::VARCHAR, 11, '0'), 'FUNNEL00000' || (i % 7), 'FGROUP000001', 'TSOURCE0000' || (i % 5),
       'NODE0000000' || (i % 9), 'PAGE0000000' || (i % 9), ['US', 'DE', 'FR', 'GB'][i % 4 + 1], '203.0.113.' || (i % 250), 'click-' || i, $2 + i * 3000, i % 3 = 0,
       0, false, ['mobile', 'desktop'][i % 2 + 1], ['Android', 'iOS', 'Windows'][i % 3 + 1], ['Chrome', 'Safari'][i % 2 + 1], 'City ' || (i % 100), 'Mozilla/5.0 bench ' || (i % 1000)
     FROM range($3::BIGINT) r(i)`,
    [accountId, BigInt(start), BigInt(count)],
  );
  connection.closeSync();
  instance.closeSync();
  const db = new Database(join(dir, 'reporting.sqlite'));
  db.prepare(
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?)
     INSERT INTO hit_keys (account_id, hit_id, time_ms) SELECT ?, 'P' || printf('%011d', i), ? + i * 3000 FROM n`,
  ).run(count, accountId, start);
  db.close();
}

function benchHit(accountId: string, hitId: string, n: number): Hit {
  return aHit({
    hitId,
    visitorId: hitId,
    accountId,
    trackingFields: { external: `click-${n}` },
    time: new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString(),
  });
}

/** The bare writes: one UPDATE of a hit's conversions per row, 1,000 rows per transaction, same table shape. */
async function baseline(
  filename: string,
  accountId: string,
  hitIds: string[],
  payloads: ConversionsJobPayload[],
): Promise<{ seconds: number; cpuSeconds: number }> {
  const db = new Database(filename);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE hits (account_id TEXT NOT NULL, hit_id TEXT NOT NULL, time_ms INTEGER NOT NULL, conversions TEXT NOT NULL,
    PRIMARY KEY (account_id, hit_id)) WITHOUT ROWID`);
  const insert = db.prepare('INSERT INTO hits VALUES (?, ?, ?, ?)');
  db.transaction(() => hitIds.forEach((hitId, n) => insert.run(accountId, hitId, n, '[]')))();
  const update = db.prepare('UPDATE hits SET conversions = ? WHERE account_id = ? AND hit_id = ?');
  const result = await timed(() => {
    for (const payload of payloads) {
      db.transaction(() => {
        for (const row of payload.hits) update.run(JSON.stringify([{ transactionId: row.transactionId, payout: row.payout }]), accountId, row.hitId);
      })();
    }
  });
  db.close();
  return result;
}

if (require.main === module) {
  const jobRows = Number(process.env.BENCH_APPLY_JOB_ROWS ?? JOB_ROWS);
  const oldRows = Number(process.env.BENCH_APPLY_OLD_ROWS ?? 0);
  void reportingApplyRate(100_000, Math.round((50 * JOB_ROWS) / jobRows), Number(process.env.BENCH_APPLY_PRELOAD ?? 0), jobRows, oldRows).then((r) =>
    console.log(
      `reporting apply (${r.preloaded} hits preloaded, ${r.jobRows} rows a job${oldRows > 0 ? `, ${oldRows} of them on preloaded hits` : ''}): ${Math.round(r.rowsPerSecond)} rows/s, ${Math.round(r.rowsPerCpuSecond)} rows per CPU second (${r.rows} rows in ${r.seconds.toFixed(2)} s); ` +
        `baseline ${Math.round(r.baselineRowsPerSecond)} rows/s, ${Math.round(r.baselineRowsPerCpuSecond)} rows per CPU second`,
    ),
  );
}
