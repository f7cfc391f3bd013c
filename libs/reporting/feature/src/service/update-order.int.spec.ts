import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { parseConversionsUpdate } from '@funnel/contracts';
import { createEventStore, type EventStore } from '@funnel/eventstore';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { startNatsServer, tempDir, type RunningNatsServer } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import type { HitStore } from '../hits/hit-store';
import { openTempHitStore } from '../hits/duckdb/temp-hit-store';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { JetStreamJobQueue } from '../queue/jetstream-job-queue';
import { waitFor } from '../queue/job-queue.contract';
import { applyReportingUpdate } from './apply-update';
import { IdempotencyKeys, JobRecords } from './job-records';
import { ReportingUpdates } from './reporting-updates';
import type { AcceptedUpdate, ApplyUpdate, PostbackPayload, PostbacksQueue, UpdatePayload, UpdatesQueue } from './reporting.tokens';
import { UpdateWorker } from './update-worker';

const ACCOUNT = 'ACCOUNT00001';
const HIT = 'HIT000000001';
const context = { accountId: ACCOUNT, userId: 'u', permissions: ['reporting:write'], correlationId: 'c' };
const conversion = (payout: string, transactionId?: string): AcceptedUpdate => ({
  type: 'conversions',
  update: parseConversionsUpdate({ hits: [{ hitId: HIT, payout, ...(transactionId ? { transactionId } : {}), time: '2026-01-10T13:00:00Z' }] }),
});

/** One process applying update jobs: its queue (and postback queue) over the shared backing store. */
interface Replica {
  updates: UpdatesQueue;
  postbacks: PostbacksQueue;
}

interface Backend {
  open(): Promise<Replica>;
  close(): Promise<void>;
}

/**
 * A hit store on which the first job's write waits until a second job read the hit (or half a
 * second passed): two jobs running side by side both read the hit before either writes.
 */
function racingStore(store: HitStore, firstJobId: () => string): HitStore {
  let reads = 0;
  const readers: (() => void)[] = [];
  return Object.assign(Object.create(store) as HitStore, {
    getHitStates: async (...args: Parameters<HitStore['getHitStates']>) => {
      const hits = await store.getHitStates(...args);
      reads += 1;
      readers.splice(0).forEach((wake) => wake());
      return hits;
    },
    commitRows: async (...args: Parameters<HitStore['commitRows']>) => {
      if (args[1] === firstJobId() && reads < 2) {
        await Promise.race([new Promise<void>((resolve) => readers.push(resolve)), new Promise((resolve) => setTimeout(resolve, 500))]);
      }
      return store.commitRows(...args);
    },
  });
}

/** Accepts `updates` back to back, then starts `replicas` workers (`concurrency` jobs at once each) and waits until every job is done. */
async function applyInOrder(backend: Backend, events: EventStore, updates: AcceptedUpdate[], replicas: number, concurrency: number) {
  const store = await openTempHitStore();
  await store.insertHits([aHit({ hitId: HIT, accountId: ACCOUNT, idTrafficSource: 'organic' })]);
  const records = new JobRecords(events);
  const opened = await Promise.all(Array.from({ length: replicas }, () => backend.open()));
  const jobIds: string[] = [];
  const accepting = new ReportingUpdates(opened[0].updates, records, new IdempotencyKeys(events));
  for (const update of updates) jobIds.push(...(await accepting.accept(context, update)).jobIds);

  const hits = racingStore(store, () => jobIds[0]);
  const applyOne = applyReportingUpdate({ hits, sources: async () => undefined });
  let running = 0;
  let most = 0;
  const appliedBy = new Set<number>();
  const applyOn =
    (replica: number): ApplyUpdate =>
    async (job) => {
      appliedBy.add(replica);
      return apply(job);
    };
  const apply: ApplyUpdate = async (job) => {
    running += 1;
    most = Math.max(most, running);
    try {
      return await applyOne(job);
    } finally {
      running -= 1;
    }
  };
  for (const [i, replica] of opened.entries()) {
    // Two processes of one slot each and no room for waiting jobs: each takes one of the two jobs.
    const settings = { workerConcurrency: concurrency, ...(replicas > 1 ? { waitingJobs: 0 } : {}) };
    await new UpdateWorker(replica.updates, replica.postbacks, applyOn(i), settings, records).onApplicationBootstrap();
  }
  await waitFor(async () => {
    const statuses = await Promise.all(jobIds.map(async (jobId) => (await records.get(ACCOUNT, jobId))?.status));
    return statuses.every((status) => status === 'done');
  });
  const [hit] = await store.getHits(ACCOUNT, [HIT]);
  await store.close();
  return { hit: hit as Hit, most, replicas: appliedBy.size };
}

/** `replicas` workers of `concurrency` each: one process of 2 (embedded), or two of 1 (JetStream: each replica takes one of the two jobs). */
function describeOrder(name: string, replicas: number, concurrency: number, backendFactory: (dir: string) => Backend) {
  describe(`update jobs of one account (${name})`, () => {
    const dir = tempDir('update-order');
    let events: EventStore;
    let backend: Backend;

    beforeAll(() => {
      events = createEventStore({ dataDir: dir.path });
    });
    beforeEach(() => {
      backend = backendFactory(dir.path);
    });
    afterEach(async () => {
      await backend.close();
    });
    afterAll(async () => {
      await events.close();
      dir.remove();
    });

    it('keep both conversions of two jobs on one hit (no lost update), never applying two at once', async () => {
      const applied = await applyInOrder(backend, events, [conversion('10', 'A'), conversion('20', 'B')], replicas, concurrency);
      expect(applied.hit.conversions.map((c) => c.transactionId).sort()).toEqual(['A', 'B']);
      expect(applied.most).toBe(1);
      expect(applied.replicas).toBe(replicas);
    });

    it('apply in acceptance order: conversions, then payout -1, leave the hit without conversions', async () => {
      const applied = await applyInOrder(backend, events, [conversion('10', 'A'), conversion('-1')], replicas, concurrency);
      expect(applied.hit.conversions).toEqual([]);
      expect(applied.replicas).toBe(replicas);
    });
  });
}

describeOrder('embedded queue, one process', 1, 2, (dir) => {
  const queues: EmbeddedJobQueue<unknown>[] = [];
  return {
    open: async () => {
      const name = `q${randomUUID().replace(/-/g, '').slice(0, 8)}`;
      const filename = join(dir, 'queue.sqlite');
      const updates = new EmbeddedJobQueue<UpdatePayload>({ name: `updates_${name}`, subjectPrefix: 'u', filename, pollIntervalMs: 50 });
      const postbacks = new EmbeddedJobQueue<PostbackPayload>({ name: `postbacks_${name}`, subjectPrefix: 'p', filename, pollIntervalMs: 50 });
      queues.push(updates as EmbeddedJobQueue<unknown>, postbacks as EmbeddedJobQueue<unknown>);
      return { updates, postbacks };
    },
    close: async () => {
      await Promise.all(queues.splice(0).map((queue) => queue.close()));
    },
  };
});

let server: RunningNatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server.stop();
});

describeOrder('JetStream, two replicas', 2, 1, () => {
  const unique = randomUUID().replace(/-/g, '').slice(0, 8);
  const connections: NatsConnection[] = [];
  const queues: JetStreamJobQueue<unknown>[] = [];
  return {
    open: async () => {
      const connection = await connect({ servers: server.url });
      connections.push(connection);
      const updates = new JetStreamJobQueue<UpdatePayload>({ name: `UPDATES_${unique}`, subjectPrefix: `u${unique}`, connection, ackWaitMs: 5000 });
      const postbacks = new JetStreamJobQueue<PostbackPayload>({ name: `POSTBACKS_${unique}`, subjectPrefix: `p${unique}`, connection });
      queues.push(updates as JetStreamJobQueue<unknown>, postbacks as JetStreamJobQueue<unknown>);
      return { updates, postbacks };
    },
    close: async () => {
      await Promise.all(queues.splice(0).map((queue) => queue.close()));
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
    },
  };
});

describe('the next job of an account (embedded queue, one process)', () => {
  it('starts as soon as the one before it finished, without a poll timer firing', async () => {
    const dir = tempDir('update-order-wake');
    const events = createEventStore({ dataDir: dir.path });
    const store = await openTempHitStore();
    await store.insertHits([aHit({ hitId: HIT, accountId: ACCOUNT, idTrafficSource: 'organic' })]);
    const filename = join(dir.path, 'queue.sqlite');
    const updates = new EmbeddedJobQueue<UpdatePayload>({ name: 'updates', subjectPrefix: 'u', filename });
    const postbacks = new EmbeddedJobQueue<PostbackPayload>({ name: 'postbacks', subjectPrefix: 'p', filename });
    const records = new JobRecords(events);
    const accepting = new ReportingUpdates(updates, records, new IdempotencyKeys(events));
    const jobIds: string[] = [];
    for (let i = 0; i < 6; i++) jobIds.push(...(await accepting.accept(context, conversion(String(i + 1), `T${i}`))).jobIds);
    // Timers never fire from here on (the clock stands still): a job that looked again only on a
    // timer would wait forever behind the first one; turns of the event loop still run.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      const apply = applyReportingUpdate({ hits: store, sources: async () => undefined });
      await new UpdateWorker(updates, postbacks, apply, { workerConcurrency: 2 }, records).onApplicationBootstrap();
      let statuses: (string | undefined)[] = [];
      for (let turn = 0; turn < 5_000; turn++) {
        statuses = await Promise.all(jobIds.map(async (jobId) => (await records.get(ACCOUNT, jobId))?.status));
        if (statuses.every((status) => status === 'done')) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(statuses).toEqual(jobIds.map(() => 'done'));
      const [hit] = await store.getHits(ACCOUNT, [HIT]);
      expect(hit.conversions.map((c) => c.transactionId)).toEqual(['T0', 'T1', 'T2', 'T3', 'T4', 'T5']);
    } finally {
      jest.useRealTimers();
      await Promise.all([updates.close(), postbacks.close()]);
      await store.close();
      await events.close();
      dir.remove();
    }
  });
});
