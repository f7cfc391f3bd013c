/**
 * The floor of the hits ingest (issue 20): DuckDB alone doing what the embedded warehouse must do at
 * least with the ingest bench's 100,000 hits. Their rows in the warehouse layout, laid out into data
 * chunks before the timer starts (no JavaScript packing counted), appended by one appender in one
 * transaction (as the store's open ingest transaction holds them), flushed, committed (on DuckDB's
 * workers, as the store commits: runOnWorkers), and the
 * database closed (its checkpoint), in the store's settings. No parsing, no dedupe, no hit-key index,
 * no ingest log. Run alone: `node -r ./tools/register.js tools/bench/hits-ingest-floor.bench.ts`.
 */
import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBDataChunk } from '@duckdb/node-api';
import { generateAssetId } from '@funnel/contracts';
import { WAREHOUSE_CHECKPOINT_THRESHOLD, WAREHOUSE_COLUMNS, backgroundWorkers, dataChunkOf, runOnWorkers, warehouseRow } from '@funnel/reporting-feature';
import { benchHits, timed } from './hits-ingest.bench';

/** Rows per data chunk: DuckDB's vector size, the most `dataChunkOf` takes. */
const CHUNK_ROWS = 2048;

export interface HitsIngestFloor {
  hitsPerSecond: number;
  hitsPerCpuSecond: number;
  hits: number;
  seconds: number;
  /** Wall seconds of each step: appending the chunks, the appender's flush, the commit, the close (checkpoint). */
  steps: { append: number; flush: number; commit: number; close: number };
}

export async function hitsIngestFloor(hits = 100_000): Promise<HitsIngestFloor> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-hits-floor-'));
  try {
    const rows = benchHits(generateAssetId(), hits).map(warehouseRow);
    const chunks: DuckDBDataChunk[] = [];
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) chunks.push(dataChunkOf(WAREHOUSE_COLUMNS, rows.slice(start, start + CHUNK_ROWS)));
    const instance = await DuckDBInstance.create(join(dir, 'floor.duckdb'), { checkpoint_threshold: WAREHOUSE_CHECKPOINT_THRESHOLD });
    const connection = await instance.connect();
    const workers = await backgroundWorkers(instance);
    await connection.run(`CREATE TABLE hits (${WAREHOUSE_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
    const marks: number[] = [];
    const mark = () => marks.push(performance.now());
    const measure = await timed(async () => {
      mark();
      await connection.run('BEGIN TRANSACTION');
      const appender = await connection.createAppender('hits');
      for (const chunk of chunks) appender.appendDataChunk(chunk);
      mark();
      appender.flushSync();
      mark();
      appender.closeSync();
      await runOnWorkers(connection, 'COMMIT', workers);
      mark();
      connection.closeSync();
      instance.closeSync();
      mark();
    });
    const step = (i: number) => (marks[i + 1] - marks[i]) / 1000;
    return {
      hitsPerSecond: hits / measure.seconds,
      hitsPerCpuSecond: hits / measure.cpuSeconds,
      hits,
      seconds: measure.seconds,
      steps: { append: step(0), flush: step(1), commit: step(2), close: step(3) },
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The floor's steps, e.g. "append 0.38 s, flush 0.45 s, commit 0.52 s, close 0.10 s". */
export function floorSteps(floor: HitsIngestFloor): string {
  return Object.entries(floor.steps)
    .map(([name, seconds]) => `${name} ${seconds.toFixed(2)} s`)
    .join(', ');
}

if (require.main === module) {
  void hitsIngestFloor(Number(process.env.BENCH_INGEST_HITS ?? 100_000)).then((r) =>
    console.log(
      `hits ingest floor: ${Math.round(r.hitsPerSecond)} hits/s, ${Math.round(r.hitsPerCpuSecond)} per CPU second (${r.hits} in ${r.seconds.toFixed(2)} s: ${floorSteps(r)}); ` +
        `${(r.hitsPerSecond / 100_000).toFixed(2)} of the 100,000 hits/s target`,
    ),
  );
}
