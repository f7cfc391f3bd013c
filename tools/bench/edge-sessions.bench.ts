/**
 * Visitor session store speed (issue 22): µs per get and put of a realistic session (10 URL
 * parameters, 2 tags, ~700 bytes of JSON) on each adapter, with a baseline from the same run.
 * - embedded SQLite: sequential calls (better-sqlite3 is synchronous: a call's time is the time the
 *   event loop is held), 20,000 puts over 10,000 visitors so WAL checkpoints happen, then 20,000 gets;
 *   baseline: encoding and decoding the session alone.
 * - JetStream KV on a local nats-server: one call at a time (a visitor's wait), and 64 in flight
 *   (throughput); baseline: a core NATS request/reply round trip to an echo on the same server.
 * Run alone: `node -r ./tools/register.js tools/bench/edge-sessions.bench.ts`.
 */
import 'reflect-metadata';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { connect } from 'nats';
import { decodeSession, encodeSession } from '@funnel/edge-domain';
import { KvSessionStore, SqliteSessionStore, type SessionStore } from '@funnel/edge-feature';
import type { RoutingSession } from '@funnel/routing';
import { startNatsServer } from '@funnel/testing';

export interface Timing {
  /** µs per call: mean, 99th percentile, the longest. */
  mean: number;
  p99: number;
  max: number;
}

export interface SessionBenchResult {
  /**
   * putCall: the event loop's share of a put (encode, remember, queue the row); putCpuMicros: the main
   * thread's CPU per put over those puts, awaits included (Linux: its schedstat; undefined elsewhere); put: a put awaited
   * until the writer thread wrote it, one at a time; putConcurrent: µs per put with 64 in flight;
   * loopDelay: the event loop's delay (p99 and max, µs) while those puts ran.
   */
  sqlite: {
    putCall: Timing;
    putCpuMicros: number | undefined;
    put: Timing;
    putConcurrent: number;
    loopDelay: { p99: number; max: number };
    /** The same loop delay while a Map stands in for the store (encode, set, resolve next turn): the machine's own share. */
    baselineLoopDelay: { p99: number; max: number };
    get: Timing;
    codec: Timing;
  };
  kv: { put: Timing; get: Timing; putConcurrent: number; getConcurrent: number; natsRoundTrip: Timing };
}

const VISITORS = 10_000;
const OPS = 20_000;
const KV_OPS = 5_000;
const IN_FLIGHT = 64;

function session(i: number): RoutingSession {
  const id = `V${String(i).padStart(11, '0')}`;
  return {
    visitorId: id,
    startedAt: Date.now(),
    idFunnel: 'F00000000001',
    idTrafficSource: 'T00000000001',
    currentNode: 'N00000000003',
    lastHitId: `H${String(i).padStart(11, '0')}`,
    currentPage: 'P00000000001',
    trackingFields: { c1: 'spring-sale', c2: 'banner-728x90', c3: 'placement-17' },
    cost: '0.045',
    tags: ['TAG000000001', 'TAG000000002'],
    sticky: { N00000000002: 'C00000000004' },
    urlBuffer: Object.fromEntries(Array.from({ length: 10 }, (_, k) => [`param${k}`, `value-${k}-${i}-abcdefghij`])),
  };
}

/** ns the main thread has been on a CPU (Linux), undefined where /proc is not there. */
function mainThreadCpuNs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

function timing(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    mean: (sorted.reduce((sum, x) => sum + x, 0) / sorted.length) * 1000,
    p99: sorted[Math.floor(sorted.length * 0.99)] * 1000,
    max: sorted[sorted.length - 1] * 1000,
  };
}

async function timeEach(count: number, call: (i: number) => Promise<unknown> | unknown): Promise<Timing> {
  const samples: number[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    await call(i);
    samples[i] = performance.now() - start;
  }
  return timing(samples);
}

/** µs per call with `inFlight` calls running at once. */
async function perCallConcurrent(count: number, inFlight: number, call: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await call(next++);
    }),
  );
  return ((performance.now() - start) * 1000) / count;
}

/** The event loop's delay (µs, p99 and max) while `work` runs. */
async function loopDelayDuring(work: () => Promise<unknown>): Promise<{ p99: number; max: number }> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  await work();
  loop.disable();
  return { p99: loop.percentile(99) / 1000, max: loop.max / 1000 };
}

export async function sessionStoreTimings(): Promise<SessionBenchResult> {
  const sessions = Array.from({ length: VISITORS }, (_, i) => session(i));
  const dir = mkdtempSync(join(tmpdir(), 'bench-sessions-'));
  let sqlite: SessionBenchResult['sqlite'];
  const embedded: SessionStore = new SqliteSessionStore({ filename: join(dir, 'edge-sessions.sqlite'), ttlMs: 86_400_000 });
  try {
    const codec = await timeEach(OPS, (i) => decodeSession(encodeSession(sessions[i % VISITORS]), sessions[i % VISITORS].visitorId));
    const calls: number[] = new Array(OPS);
    const written: Promise<void>[] = [];
    const cpuBefore = mainThreadCpuNs();
    for (let i = 0; i < OPS; i++) {
      const start = performance.now();
      written.push(embedded.put('ACC000000001', sessions[i % VISITORS]));
      calls[i] = performance.now() - start;
      if (i % IN_FLIGHT === IN_FLIGHT - 1) await Promise.all(written.splice(0));
    }
    await Promise.all(written);
    const cpuAfter = mainThreadCpuNs();
    const putCpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / 1000 / OPS;
    const putCall = timing(calls);
    const put = await timeEach(OPS / 10, (i) => embedded.put('ACC000000002', sessions[i % VISITORS]));
    const memory = new Map<string, string>();
    const baselineLoopDelay = await loopDelayDuring(() =>
      perCallConcurrent(OPS, IN_FLIGHT, async (i) => {
        memory.set(sessions[i % VISITORS].visitorId, encodeSession(sessions[i % VISITORS]));
        await new Promise((resolve) => setImmediate(resolve));
      }),
    );
    let putConcurrent = 0;
    const loopDelay = await loopDelayDuring(async () => {
      putConcurrent = await perCallConcurrent(OPS, IN_FLIGHT, (i) => embedded.put('ACC000000003', sessions[i % VISITORS]));
    });
    const get = await timeEach(OPS, (i) => embedded.get('ACC000000001', sessions[(i * 7919) % VISITORS].visitorId));
    sqlite = { putCall, putCpuMicros, put, putConcurrent, loopDelay, baselineLoopDelay, get, codec };
  } finally {
    await embedded.close();
    rmSync(dir, { recursive: true, force: true });
  }

  const server = await startNatsServer();
  const nc = await connect({ servers: server.url });
  try {
    nc.subscribe('bench.echo', { callback: (_error, msg) => msg.respond(msg.data) });
    const payload = new TextEncoder().encode(encodeSession(sessions[0]));
    const natsRoundTrip = await timeEach(KV_OPS, () => nc.request('bench.echo', payload));
    const store = await KvSessionStore.open({ connection: nc, ttlMs: 86_400_000 });
    const put = await timeEach(KV_OPS, (i) => store.put('ACC000000001', sessions[i % VISITORS]));
    const get = await timeEach(KV_OPS, (i) => store.get('ACC000000001', sessions[(i * 7919) % KV_OPS].visitorId));
    const putConcurrent = await perCallConcurrent(KV_OPS, IN_FLIGHT, (i) => store.put('ACC000000002', sessions[i % VISITORS]));
    const getConcurrent = await perCallConcurrent(KV_OPS, IN_FLIGHT, (i) => store.get('ACC000000002', sessions[(i * 7919) % KV_OPS].visitorId));
    return { sqlite, kv: { put, get, putConcurrent, getConcurrent, natsRoundTrip } };
  } finally {
    await nc.close();
    await server.stop();
  }
}

if (require.main === module) {
  void sessionStoreTimings().then((result) => {
    const fmt = (t: Timing) => `mean ${t.mean.toFixed(1)} µs, p99 ${t.p99.toFixed(1)} µs, max ${t.max.toFixed(0)} µs`;
    process.stdout.write(
      [
        `embedded SQLite put, event loop's share (${OPS.toLocaleString('en-US')} over ${VISITORS.toLocaleString('en-US')} visitors, ${IN_FLIGHT} at a time): ${fmt(result.sqlite.putCall)}`,
        `embedded SQLite put, main thread CPU per put over those puts: ${result.sqlite.putCpuMicros === undefined ? 'n/a' : `${result.sqlite.putCpuMicros.toFixed(2)} µs`}`,
        `embedded SQLite put awaited until written, one at a time: ${fmt(result.sqlite.put)}`,
        `embedded SQLite put with ${IN_FLIGHT} in flight: ${result.sqlite.putConcurrent.toFixed(1)} µs per put; event loop delay meanwhile p99 ${result.sqlite.loopDelay.p99.toFixed(0)} µs, max ${result.sqlite.loopDelay.max.toFixed(0)} µs`,
        `  baseline, the same with a Map for a store: event loop delay p99 ${result.sqlite.baselineLoopDelay.p99.toFixed(0)} µs, max ${result.sqlite.baselineLoopDelay.max.toFixed(0)} µs`,
        `embedded SQLite get: ${fmt(result.sqlite.get)}`,
        `  baseline, encode + decode the session alone: ${fmt(result.sqlite.codec)}`,
        `JetStream KV put, one at a time: ${fmt(result.kv.put)}`,
        `JetStream KV get, one at a time: ${fmt(result.kv.get)}`,
        `  baseline, core NATS request/reply round trip: ${fmt(result.kv.natsRoundTrip)}`,
        `JetStream KV with ${IN_FLIGHT} in flight: put ${result.kv.putConcurrent.toFixed(1)} µs, get ${result.kv.getConcurrent.toFixed(1)} µs per call`,
        '',
      ].join('\n'),
    );
  });
}
