// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generateAssetId } from '@funnel/contracts';
import { aHit, type Hit, type TrafficSourcePostbackSettings } from '@funnel/reporting-domain';
import { SqliteHitStore, applyConversions, type ConversionsJobPayload } from '@funnel/reporting-feature';

export interface ReportingApplyResult {
  rowsPerSecond: number;
  /** Rows per second of the baseline: the same hit rows updated with plain SQLite statements, 1,000 per transaction. */
  baselineRowsPerSecond: number;
  /** Rows per second of this process's CPU time (user + system): steadier than wall time on a shared machine. */
  rowsPerCpuSecond: number;
  baselineRowsPerCpuSecond: number;
  rows: number;
  seconds: number;
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

const JOB_ROWS = 1000;

/**
 * Rows applied per second by the conversions applier on the embedded hit store: `hits` stored hits,
 * `jobs` jobs of 1,000 rows each on random hits (each a new transaction id; postbackCalls `all` with a
 * postbackUrl source, so every row also decides and builds a postback). The baseline writes the
 * same number of conversion rows to an equal table of hits with one prepared UPDATE per row, 1,000 per
 * transaction: what the applier costs on top of the bare writes.
 */
export async function reportingApplyRate(hits = 100_000, jobs = 50): Promise<ReportingApplyResult> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-reporting-apply-'));
  try {
    const accountId = generateAssetId();
    // Ids from distinct milliseconds: unique, unlike a burst of ids drawn in the same few milliseconds.
    const hitIds = Array.from({ length: hits }, (_, n) => generateAssetId(Date.UTC(2026, 0, 1) + n));
    const store = new SqliteHitStore({ filename: join(dir, 'reporting.sqlite') });
    for (let start = 0; start < hits; start += 10_000) {
      await store.insertHits(hitIds.slice(start, start + 10_000).map((hitId, i) => benchHit(accountId, hitId, start + i)));
    }
    const source: TrafficSourcePostbackSettings = {
      idTrafficSource: 'TSOURCE00001',
      postback: { postbackType: 'postbackUrl', postbackCode: 'https://ts.example/pb?cid={external}&payout={payout}&tx={txid}' },
      disableZeroRevenuePostbacks: false,
      outgoingPostbackProbability: 100,
      outgoingRevenueModifier: 100,
    };
    const payloads: ConversionsJobPayload[] = Array.from({ length: jobs }, (_, job) => ({
      postbackCalls: 'all',
      hits: Array.from({ length: JOB_ROWS }, (_, row) => ({
        hitId: hitIds[Math.floor(Math.random() * hits)],
        payout: `${(job * JOB_ROWS + row) % 100}.25`,
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
    const rows = jobs * JOB_ROWS;
    return {
      rowsPerSecond: rows / measure.seconds,
      baselineRowsPerSecond: rows / base.seconds,
      rowsPerCpuSecond: rows / measure.cpuSeconds,
      baselineRowsPerCpuSecond: rows / base.cpuSeconds,
      rows,
      seconds: measure.seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
  void reportingApplyRate().then((r) =>
    console.log(
      `reporting apply: ${Math.round(r.rowsPerSecond)} rows/s, ${Math.round(r.rowsPerCpuSecond)} rows per CPU second (${r.rows} rows in ${r.seconds.toFixed(2)} s); ` +
        `baseline ${Math.round(r.baselineRowsPerSecond)} rows/s, ${Math.round(r.baselineRowsPerCpuSecond)} rows per CPU second`,
    ),
  );
}
