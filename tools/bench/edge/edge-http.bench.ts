/**
 * The edge's HTTP layer against raw Fastify's fixed 302 (a micro measurement, not a test):
 *   node -r ./tools/register.js tools/bench/edge/edge-http.bench.ts
 * Both servers in their own processes (tools/bench/edge/edge-http-server.ts: the edge's Fastify app,
 * route metrics and visitor context, answering a fixed redirect without a walk, session or hits),
 * rounds alternated; the figure is each server's CPU µs per answer (median of the rounds).
 * BENCH_SECONDS (default 3), BENCH_ROUNDS (default 5); BENCH_EDGE_HTTP_BARE=1: the edge's app alone (no visitor
 * context, no metrics).
 */
import { load } from '../http-load';
import { cpuMs, runTs } from '../processes';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const TOKEN = '0123456789ab0123456789ab';

async function main(): Promise<void> {
  const baseline = await runTs('tools/bench/edge/fastify-redirect.ts', {}, /PORT=(\d+)/);
  const edge = await runTs('tools/bench/edge/edge-http-server.ts', { LOG_LEVEL: 'warn' }, /PORT=(\d+)/);
  try {
    const targets = [
      { name: 'fixed 302', pid: baseline.process.pid!, url: `http://127.0.0.1:${baseline.match![1]}/fts/${TOKEN}`, cpu: [] as number[], rps: [] as number[] },
      {
        name: 'edge HTTP',
        pid: edge.process.pid!,
        url: `http://127.0.0.1:${edge.match![1]}/a/0123456789ab/fts/${TOKEN}?zone=bench&cost=0.02`,
        cpu: [] as number[],
        rps: [] as number[],
      },
    ];
    for (const target of targets) await load({ url: target.url, headers: { host: 'edge.bench.local' }, durationSeconds: 2 });
    for (let round = 0; round < ROUNDS; round++) {
      for (const target of targets) {
        const before = cpuMs([target.pid])!;
        const result = await load({ url: target.url, headers: { host: 'edge.bench.local' }, durationSeconds: SECONDS });
        const after = cpuMs([target.pid])!;
        if (result.non2xx !== result.requests && Object.keys(result.statusCodes).some((code) => !code.startsWith('3')))
          throw new Error(`${target.name} answered ${JSON.stringify(result.statusCodes)}`);
        target.cpu.push(((after - before) * 1000) / result.requests);
        target.rps.push(result.requestsPerSecond);
      }
    }
    for (const target of targets) {
      process.stdout.write(
        `${target.name}: ${median(target.cpu).toFixed(1)} µs CPU per answer (rounds ${target.cpu.map((c) => c.toFixed(1)).join(', ')}), ${Math.round(median(target.rps))} req/s\n`,
      );
    }
    process.stdout.write(`ratio (edge / fixed): ${(median(targets[1].cpu) / median(targets[0].cpu)).toFixed(2)} in CPU per answer\n`);
  } finally {
    await edge.stop();
    await baseline.stop();
  }
}

void main();
