// @funnel/contracts declares its DTOs with class-transformer decorators, which need the metadata API loaded first.
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { generateAssetId } from '@funnel/contracts';
import { HIT_VISITOR_FIELDS, aHit, type Hit } from '@funnel/reporting-domain';
import { DuckDbHitStore, WAREHOUSE_CHECKPOINT_THRESHOLD, WAREHOUSE_COLUMNS, dataChunkOf, ingestHits, warehouseRow } from '@funnel/reporting-feature';

export interface HitsIngestResult {
  hitsPerSecond: number;
  hitsPerCpuSecond: number;
  /**
   * The bare writes: the same rows appended to an equal DuckDB table (same settings), a transaction per
   * batch, no checks, no dedupe, no index; closed (checkpointed) at the end, as the store is.
   */
  baselineHitsPerSecond: number;
  baselineHitsPerCpuSecond: number;
  hits: number;
  seconds: number;
}

/** Hits per ingest call (`BENCH_INGEST_BATCH`; the standalone edge's inbox drain sends a few to a few hundred). */
const BATCH = Number(process.env.BENCH_INGEST_BATCH ?? 1000);
/** Batches sent at once, as an edge fleet does (and `hits:import`): the store writes the waiting ones together. */
const IN_FLIGHT = Number(process.env.BENCH_INGEST_IN_FLIGHT ?? 8);

export async function timed(run: () => Promise<void>): Promise<{ seconds: number; cpuSeconds: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run();
  const used = process.cpuUsage(cpu);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** A hit as the edge sends it: visitor attributes, a few tracking fields, every third one a click from the one before. */
export function edgeHit(accountId: string, hitId: string, previous: string, n: number): Hit {
  return aHit({
    hitId,
    accountId,
    visitorId: `V${String(Math.floor(n / 3)).padStart(11, '0')}`,
    time: new Date(Date.UTC(2026, 0, 1) + n * 100).toISOString(),
    trackingFields: { external: `click-${n}`, campaign: `c${n % 20}`, c1: `s${n % 50}` },
    visitor: Object.fromEntries(
      HIT_VISITOR_FIELDS.map((field, i) => [field, field === 'userAgent' ? `Mozilla/5.0 (Linux; Android 14) bench/${n % 997}` : `${field}-${(n + i) % 40}`]),
    ) as Hit['visitor'],
    visitorTags: n % 4 === 0 ? ['TAG000000001'] : [],
    isEntrance: n % 3 === 0,
    action: n % 3 === 0 ? 0 : 1,
    previousHitId: n % 3 === 0 ? '' : previous,
    nodeType: n % 3 === 0 ? 'landerGroup' : 'offerGroup',
  });
}

/** The bench's `count` hits of one account, in time order (see edgeHit). */
export function benchHits(accountId: string, count: number): Hit[] {
  const ids = Array.from({ length: count }, (_, n) => generateAssetId(Date.UTC(2026, 0, 1) + n));
  return ids.map((id, n) => edgeHit(accountId, id, ids[Math.max(0, n - 1)], n));
}

/**
 * Hits ingested per second through `ingestHits` (what `reporting.hits.ingest` and `hits:import` run)
 * into the embedded warehouse, in batches of 1,000 (parsed, deduplicated against the stored ids,
 * clicks counted), IN_FLIGHT batches at a time, with every tenth batch sent again once answered
 * (all its ids known), until the store is closed (its log checkpointed into the file). Baseline: the
 * same rows appended to an equal DuckDB table, one transaction per batch, then closed.
 */
export async function hitsIngestRate(hits = 100_000): Promise<HitsIngestResult> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-hits-ingest-'));
  try {
    const accountId = generateAssetId();
    // As the edge sends them: JSON values (ingest parses every hit).
    const inputs = benchHits(accountId, hits).map((hit) => JSON.parse(JSON.stringify(hit)) as unknown);
    const store = await DuckDbHitStore.open({ dataDir: join(dir, 'store') });
    let inserted = 0;
    const measure = await timed(async () => {
      // IN_FLIGHT senders, each taking the next batch when its previous one is answered.
      let next = 0;
      const sender = async () => {
        while (next < hits) {
          const start = next;
          next += BATCH;
          const batch = inputs.slice(start, start + BATCH);
          const first = await ingestHits(store, batch);
          inserted += first.inserted;
          if ((start / BATCH) % 10 === 9) {
            const again = await ingestHits(store, batch);
            inserted += again.inserted;
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
      // Closing checkpoints: the logged hits written, compressed, into the database file.
      await store.close();
    });
    if (inserted !== hits) throw new Error(`ingest stored ${inserted} hits, not ${hits}`);
    const base = await baseline(join(dir, 'baseline.duckdb'), inputs as Hit[]);
    const sent = hits + hits / 10;
    return {
      hitsPerSecond: sent / measure.seconds,
      hitsPerCpuSecond: sent / measure.cpuSeconds,
      baselineHitsPerSecond: hits / base.seconds,
      baselineHitsPerCpuSecond: hits / base.cpuSeconds,
      hits: sent,
      seconds: measure.seconds,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function baseline(filename: string, hits: Hit[]): Promise<{ seconds: number; cpuSeconds: number }> {
  const instance = await DuckDBInstance.create(filename, { checkpoint_threshold: WAREHOUSE_CHECKPOINT_THRESHOLD });
  const connection = await instance.connect();
  await connection.run(`CREATE TABLE hits (${WAREHOUSE_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  const result = await timed(async () => {
    for (let start = 0; start < hits.length; start += BATCH) {
      await connection.run('BEGIN TRANSACTION');
      const appender = await connection.createAppender('hits');
      appender.appendDataChunk(dataChunkOf(WAREHOUSE_COLUMNS, hits.slice(start, start + BATCH).map(warehouseRow)));
      appender.closeSync();
      await connection.run('COMMIT');
    }
    connection.closeSync();
    instance.closeSync();
  });
  return result;
}

if (require.main === module) {
  void hitsIngestRate(Number(process.env.BENCH_INGEST_HITS ?? 100_000)).then((r) =>
    console.log(
      `hits ingested: ${Math.round(r.hitsPerSecond)} hits/s, ${Math.round(r.hitsPerCpuSecond)} per CPU second (${r.hits} in ${r.seconds.toFixed(2)} s); ` +
        `baseline ${Math.round(r.baselineHitsPerSecond)} hits/s, ${Math.round(r.baselineHitsPerCpuSecond)} per CPU second`,
    ),
  );
}
