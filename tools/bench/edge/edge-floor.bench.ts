/**
 * The floor of the standalone edge's entrance redirects (issue 22): raw Fastify answering its fixed
 * 302 after the durable writes such a redirect makes at least (durable-redirect.ts: the hits into
 * DuckDB's ingest transaction and log, the session through SQLite's writer thread), paired round by
 * round with raw Fastify answering the fixed 302 alone, as the edge rows are. Whether the edge's
 * target (0.5 of the fixed 302) is reachable at all with durable hits and sessions in one process.
 * Run alone: `node -r ./tools/register.js tools/bench/edge/edge-floor.bench.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Child, runTs } from '../processes';
import type { EdgeBenchKit } from './edge.bench';
import { CONNECTIONS, pairedRedirects, unexpected } from './paired-redirects';

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export async function edgeFloorFigures(
  kit: Pick<EdgeBenchKit, 'durationSeconds' | 'rounds' | 'tmp' | 'children' | 'record' | 'log'>,
  baselineUrl: string,
  baselinePid: number,
): Promise<void> {
  kit.log('edge floor: raw Fastify answering the fixed 302 once its hits are in DuckDB (ingest transaction and log) and its session in SQLite');
  const floor = await runTs('tools/bench/edge/durable-redirect.ts', { BENCH_FLOOR_DIR: kit.tmp() }, /PORT=(\d+)/);
  kit.children.push(floor);
  try {
    const p = await pairedRedirects(kit, baselineUrl, `http://127.0.0.1:${floor.match![1]}/fts/0123456789ab0123456789ab`, {
      measure: [floor.process.pid!],
      baseline: baselinePid,
    });
    const others = unexpected(p.measure, '302');
    const cpu = p.cpu ? `; CPU ${p.cpu.measure.toFixed(0)} µs per redirect, baseline ${p.cpu.baseline.toFixed(0)} µs` : '';
    kit.record(
      `edge floor: raw Fastify answering the fixed 302 after a redirect's durable writes (3-4 hit rows group-committed into DuckDB's ingest transaction and log, a session put through SQLite's writer thread; no routing) vs raw Fastify answering a fixed 302 (${CONNECTIONS} connections)`,
      `${fmt(p.measure.requestsPerSecond)} redirects/s, p99 ${p.measure.p99Ms} ms${others ? `, other answers: ${others}` : ''} (baseline round ${fmt(p.baseline.requestsPerSecond)} req/s, p99 ${p.baseline.p99Ms} ms)${cpu}`,
      `${p.ratio.toFixed(2)} of baseline; rounds ${p.ratios.map((r) => r.toFixed(2)).join(', ')}`,
      'floor of the standalone row',
    );
  } finally {
    kit.children.splice(kit.children.indexOf(floor), 1);
    await floor.stop();
  }
}

if (require.main === module) {
  const children: Child[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'funnel-edge-floor-'));
  const kit = {
    durationSeconds: Number(process.env.BENCH_SECONDS ?? 3),
    rounds: Number(process.env.BENCH_ROUNDS ?? 5),
    tmp: () => dir,
    children,
    record: (name: string, value: string, ratio = '') => console.log(`${name}: ${value}${ratio ? ` (${ratio})` : ''}`),
    log: (line: string) => console.log(line),
  };
  void (async () => {
    try {
      const baseline = await runTs('tools/bench/edge/fastify-redirect.ts', {}, /PORT=(\d+)/);
      children.push(baseline);
      await edgeFloorFigures(kit, `http://127.0.0.1:${baseline.match![1]}/fts/0123456789ab0123456789ab`, baseline.process.pid!);
    } finally {
      for (const child of children.splice(0).reverse()) await child.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  })();
}
