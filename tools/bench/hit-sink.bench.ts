// The edge's hit hand-off (issue 22): record() throughput and latency of both sinks, many requests at once.
//   node -r ./tools/register.js tools/bench/hit-sink.bench.ts
// The "into DuckDB" rows count the whole standalone hand-off, until the hits are in the embedded
// warehouse: through the inbox (posted from the writer thread, drained every 50 ms, CPU until drained)
// and straight to the warehouse's ingest in the process (InProcessHitPoster). `BENCH_SINKS=duckdb`
// runs those rows only.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { GroupCommitHitSink, ImmediateHitSink, InboxHitWriter, JetStreamHitWriter, type HitSink } from '@funnel/edge-feature';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { HitInbox, InProcessHitPoster, ThreadedInboxPoster, createHitStore, ensureHitsStream, ingestHits } from '@funnel/reporting-feature';
import { startNatsServer } from '@funnel/testing';

export interface HitSinkBenchRow {
  sink: string;
  hitsPerSecond: number;
  /** Mean wall time of one record() call (3 hits), µs. */
  recordMicros: number;
  /** Process CPU per record() call, µs (writer threads included). */
  cpuMicrosPerRecord: number;
  /** Durable writes made (group-commit sinks); the immediate sink writes each request's hits as they come. */
  writes?: number;
}

const HITS_PER_REQUEST = 3;
let counter = 0;
/** A request's hits, sharing one visitor object as the edge's do. */
const nextHits = (): Hit[] => {
  const hits = Array.from({ length: HITS_PER_REQUEST }, () => aHit({ hitId: `H${String(counter++).padStart(11, '0')}`, accountId: 'ACCOUNT00001' }));
  for (const hit of hits) hit.visitor = hits[0].visitor;
  return hits;
};

/** `concurrency` callers record 3 hits each, again and again, for `seconds`; CPU counted until `settled` (default: at once). */
async function drive(
  name: string,
  sink: HitSink & { writes?: number },
  concurrency: number,
  seconds: number,
  settled: () => Promise<void> = async () => undefined,
): Promise<HitSinkBenchRow> {
  const end = Date.now() + seconds * 1000;
  let calls = 0;
  let waitedMs = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const hits = nextHits();
        const t = performance.now();
        await sink.record(hits);
        waitedMs += performance.now() - t;
        calls++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  await settled();
  const used = process.cpuUsage(cpu);
  return {
    sink: name,
    hitsPerSecond: (calls * HITS_PER_REQUEST) / elapsed,
    recordMicros: (waitedMs * 1000) / calls,
    cpuMicrosPerRecord: (used.user + used.system) / calls,
    writes: sink.writes,
  };
}

/** The standalone hand-off into the embedded warehouse: through the inbox and its drain, then straight to its ingest. */
async function intoDuckDb(dir: string, seconds: number, concurrency: number): Promise<HitSinkBenchRow[]> {
  const rows: HitSinkBenchRow[] = [];
  {
    const store = await createHitStore({ dataDir: join(dir, 'inbox') });
    const file = join(dir, 'inbox', 'reporting.sqlite');
    const inbox = new HitInbox(file);
    const stop = inbox.watch((inputs) => ingestHits(store, inputs));
    const poster = new ThreadedInboxPoster(file);
    const sink = new GroupCommitHitSink(new InboxHitWriter(poster), { maxWaitMs: 2, maxConcurrentWrites: 1 });
    const drained = async () => {
      while (inbox.postedWaiting() > 0) await new Promise((resolve) => setTimeout(resolve, 5));
    };
    rows.push(await drive('into DuckDB: inbox from a writer thread + drain, wait 2 ms', sink, concurrency, seconds, drained));
    await sink.close();
    await poster.close();
    await stop();
    inbox.close();
    await store.close();
  }
  {
    const store = await createHitStore({ dataDir: join(dir, 'direct') });
    const sink = new GroupCommitHitSink(new InboxHitWriter(new InProcessHitPoster((inputs) => ingestHits(store, inputs))), {
      maxWaitMs: 2,
      maxConcurrentWrites: 1,
    });
    rows.push(await drive('into DuckDB: the ingest in the process, wait 2 ms', sink, concurrency, seconds));
    await sink.close();
    await store.close();
  }
  return rows;
}

export async function hitSinkBench(seconds = 5, concurrency = 256): Promise<HitSinkBenchRow[]> {
  const rows: HitSinkBenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'hit-sink-bench-'));
  try {
    rows.push(...(await intoDuckDb(dir, seconds, concurrency)));
    if (process.env.BENCH_SINKS === 'duckdb') return rows;
    for (const maxWaitMs of [0, 2]) {
      const inbox = new HitInbox(join(dir, `reporting-${maxWaitMs}.sqlite`));
      const sink = new GroupCommitHitSink(new InboxHitWriter(inbox), { maxWaitMs, maxConcurrentWrites: 1 });
      rows.push(await drive(`inbox (standalone), wait ${maxWaitMs} ms`, sink, concurrency, seconds));
      await sink.close();
      inbox.close();
    }
    {
      const poster = new ThreadedInboxPoster(join(dir, 'reporting-threaded.sqlite'));
      const sink = new GroupCommitHitSink(new InboxHitWriter(poster), { maxWaitMs: 2, maxConcurrentWrites: 1 });
      rows.push(await drive('inbox (standalone) from a writer thread, wait 2 ms', sink, concurrency, seconds));
      await sink.close();
      await poster.close();
    }
    const server = await startNatsServer();
    const nc = await connect({ servers: server.url });
    try {
      await ensureHitsStream(await nc.jetstreamManager(), { maxAgeMs: 3600_000, maxBytes: 0, duplicateWindowMs: 120_000 });
      // As distributed mode runs it (hits-config.ts): each request's hits published at the end of its event-loop turn.
      const sink = new ImmediateHitSink(new JetStreamHitWriter({ connection: nc }));
      rows.push(await drive('JetStream (distributed), immediate', sink, concurrency, seconds));
      await sink.close();
    } finally {
      await nc.close();
      await server.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

if (require.main === module) {
  void hitSinkBench(Number(process.env.SECONDS ?? 5), Number(process.env.CONCURRENCY ?? 256)).then((rows) => {
    for (const row of rows)
      console.log(
        `${row.sink}: ${Math.round(row.hitsPerSecond).toLocaleString('en-US')} hits/s, record() ${Math.round(row.recordMicros)} µs wall, ${Math.round(row.cpuMicrosPerRecord)} µs CPU${row.writes === undefined ? '' : `, ${row.writes} writes`}`,
      );
  });
}
