import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { IDEMPOTENCY_KEY_TTL_MS, ServiceError, parseConversionsUpdate, parseCustomEventsUpdate } from '@funnel/contracts';
import { createEventStore, type EventStore } from '@funnel/eventstore';
import { natsLimitsConfig } from '@funnel/platform';
import { startNatsServer, tempDir, type RunningNatsServer } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { EmbeddedJobQueue } from '../queue/embedded-job-queue';
import { JetStreamJobQueue } from '../queue/jetstream-job-queue';
import { waitFor } from '../queue/job-queue.contract';
import type { JobEnvelope } from '../queue/job-queue';
import { IdempotencyKeys, JobRecords } from './job-records';
import { ReportingUpdates } from './reporting-updates';
import type { AppliedJob, UpdateJob, UpdatePayload } from './reporting.tokens';
import { UpdateWorker } from './update-worker';

/** Accepting updates on real parts: the SQLite event log (job records, keys) and an embedded queue. */
describe('ReportingUpdates', () => {
  const dir = tempDir('reporting-updates');
  let events: EventStore;
  let queue: EmbeddedJobQueue<UpdatePayload>;
  let updates: ReportingUpdates;
  const context = (accountId: string) => ({ accountId, userId: 'u', permissions: ['reporting:write'], correlationId: 'c' });
  const update = (eventNumber: number) => ({
    type: 'customevents' as const,
    update: parseCustomEventsUpdate({ hits: [{ hitId: 'HIT000000001', eventNumber, time: '2026-01-10T12:00:00Z' }] }),
  });

  beforeAll(() => {
    events = createEventStore({ dataDir: dir.path });
    queue = new EmbeddedJobQueue<UpdatePayload>({ name: 'updates', subjectPrefix: 'u', filename: join(dir.path, 'queue.sqlite') });
    const records = new JobRecords(events);
    updates = new ReportingUpdates(queue, records, new IdempotencyKeys(events));
  });

  afterAll(async () => {
    await queue.close();
    await events.close();
    dir.remove();
  });

  it('records and queues one job per accepted update', async () => {
    const before = await queue.depth();
    const accepted = await updates.accept(context('ACCOUNT00001'), update(1));
    expect(await queue.depth()).toBe(before + 1);
    expect(await new JobRecords(events).get('ACCOUNT00001', accepted.jobIds[0])).toMatchObject({ status: 'queued', type: 'customevents', counts: { rows: 1 } });
    expect(await new JobRecords(events).get('ACCOUNT00002', accepted.jobIds[0])).toBeUndefined();
  });

  it('gives two racing requests with one key the same job, queued once', async () => {
    const before = await queue.depth();
    const [a, b] = await Promise.all([
      updates.accept(context('ACCOUNT00001'), update(2), 'race-key'),
      updates.accept(context('ACCOUNT00001'), update(2), 'race-key'),
    ]);
    expect(a).toEqual(b);
    expect(await queue.depth()).toBe(before + 1);
  });

  it('keeps keys per account, refuses a key reused with another update, and a malformed key', async () => {
    const mine = await updates.accept(context('ACCOUNT00001'), update(3), 'shared-key');
    const theirs = await updates.accept(context('ACCOUNT00002'), update(3), 'shared-key');
    expect(theirs.jobIds).not.toEqual(mine.jobIds);
    await expect(updates.accept(context('ACCOUNT00001'), update(4), 'shared-key')).rejects.toMatchObject({
      status: 409,
      code: 'REPORTING.IDEMPOTENCY_KEY_REUSED',
    });
    const bad = await updates.accept(context('ACCOUNT00001'), update(3), 'has space').catch((error: ServiceError) => error);
    expect(bad).toMatchObject({ status: 400, details: [expect.objectContaining({ field: 'Idempotency-Key' })] });
  });

  it('lets a key stand for its job for 24 h, then for a new one', async () => {
    const first = await updates.accept(context('ACCOUNT00001'), update(5), 'daily-key');
    const dayLater = new ReportingUpdates(queue, new JobRecords(events), new IdempotencyKeys(events, () => Date.now() + IDEMPOTENCY_KEY_TTL_MS));
    const before = await queue.depth();
    const next = await dayLater.accept(context('ACCOUNT00001'), update(6), 'daily-key');
    expect(next.jobIds).not.toEqual(first.jobIds);
    expect(await queue.depth()).toBe(before + 1);
    // Now the key stands for the new job: its retry gets it back, the first update is another request.
    expect(await updates.accept(context('ACCOUNT00001'), update(6), 'daily-key')).toEqual(next);
    await expect(updates.accept(context('ACCOUNT00001'), update(5), 'daily-key')).rejects.toMatchObject({ status: 409 });
  });
});

/** A crash of the accepting process between its two steps, injected: queueing the job, then recording it. */
describe('ReportingUpdates after a crash between queueing and recording', () => {
  const dir = tempDir('reporting-updates-crash');
  let events: EventStore;
  const queues: EmbeddedJobQueue<UpdatePayload>[] = [];
  const context = { accountId: 'ACCOUNT00003', userId: 'u', permissions: ['reporting:write'], correlationId: 'c' };
  const accepted = () => ({
    type: 'customevents' as const,
    update: parseCustomEventsUpdate({ hits: [{ hitId: 'HIT000000001', eventNumber: 1, time: '2026-01-10T12:00:00Z' }] }),
  });
  const openQueue = (name: string) => {
    const queue = new EmbeddedJobQueue<UpdatePayload>({ name, subjectPrefix: name, filename: join(dir.path, 'queue.sqlite') });
    queues.push(queue);
    return queue;
  };
  /** The worker of the restarted process, applying every job as one applied row. */
  const startWorker = async (queue: EmbeddedJobQueue<UpdatePayload>, records: JobRecords) => {
    const applied: UpdateJob[] = [];
    const apply = async (job: UpdateJob): Promise<AppliedJob> => {
      applied.push(job);
      return { counts: { rows: 1, applied: 1, noop: 0, notFound: 0, failed: 0 }, errors: [], postbacks: [] };
    };
    const worker = new UpdateWorker(queue, openQueue(`postbacks${queues.length}`) as never, apply, {}, records);
    await worker.onApplicationBootstrap();
    return applied;
  };

  beforeAll(() => {
    events = createEventStore({ dataDir: dir.path });
  });

  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
    await events.close();
    dir.remove();
  });

  it('leaves the job queued without a record, which the worker then writes from the job and finishes', async () => {
    const queue = openQueue('crashafterqueue');
    const records = new JobRecords(events);
    // The process dies once the job is on the queue, before its record is written.
    const dying = Object.assign(Object.create(records) as JobRecords, {
      queued: () => Promise.reject(new Error('process killed')),
    });
    await expect(new ReportingUpdates(queue, dying, new IdempotencyKeys(events)).accept(context, accepted())).rejects.toThrow('process killed');
    expect(await queue.depth()).toBe(1);

    const applied = await startWorker(queue, records);
    await waitFor(async () => (await records.get(context.accountId, applied[0]?.jobId ?? 'none'))?.status === 'done');
    const job = applied[0];
    expect(await records.get(context.accountId, job.jobId)).toMatchObject({
      jobId: job.jobId,
      type: 'customevents',
      status: 'done',
      queuedAt: job.queuedAt,
      counts: { rows: 1, applied: 1 },
    });
    expect(applied).toHaveLength(1);
  });

  it('records nothing when the job could not be queued', async () => {
    const queue = openQueue('crashbeforequeue');
    const tried: JobEnvelope<UpdatePayload>[] = [];
    const failing = Object.assign(Object.create(queue) as EmbeddedJobQueue<UpdatePayload>, {
      enqueue: (jobs: JobEnvelope<UpdatePayload>[]) => {
        tried.push(...jobs);
        return Promise.reject(new Error('process killed'));
      },
    });
    const records = new JobRecords(events);
    await expect(new ReportingUpdates(failing, records, new IdempotencyKeys(events)).accept(context, accepted())).rejects.toThrow('process killed');
    expect(tried).toHaveLength(1);
    expect(await records.get(context.accountId, tried[0].jobId)).toBeUndefined();
    expect(await queue.depth()).toBe(0);
  });

  it('with an Idempotency-Key, the retry queues and records the job the first request left unrecorded, once', async () => {
    const queue = openQueue('crashwithkey');
    const records = new JobRecords(events);
    const dying = Object.assign(Object.create(records) as JobRecords, { queued: () => Promise.reject(new Error('process killed')) });
    await expect(new ReportingUpdates(queue, dying, new IdempotencyKeys(events)).accept(context, accepted(), 'crash-key')).rejects.toThrow('process killed');
    const retried = await new ReportingUpdates(queue, records, new IdempotencyKeys(events)).accept(context, accepted(), 'crash-key');
    expect(await queue.depth()).toBe(1);
    expect(await records.get(context.accountId, retried.jobIds[0])).toMatchObject({ status: 'queued', queuedAt: retried.queuedAt, counts: { rows: 1 } });
  });
});

/** The largest update the spec allows (10,000 conversion rows, 256-character transaction ids) on JetStream, as distributed mode queues it. */
describe('ReportingUpdates on JetStream with the largest update', () => {
  const dir = tempDir('reporting-updates-jetstream');
  let events: EventStore;
  const servers: RunningNatsServer[] = [];
  const connections: NatsConnection[] = [];
  const queues: JetStreamJobQueue<UpdatePayload>[] = [];
  const context = { accountId: 'ACCOUNT00004', userId: 'u', permissions: ['reporting:write'], correlationId: 'c' };
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const largest = () => ({
    type: 'conversions' as const,
    update: parseConversionsUpdate({
      hits: Array.from({ length: 10_000 }, (_, i) => ({
        hitId: `HIT${String(i).padStart(9, '0')}`,
        payout: '12.5',
        transactionId: Array.from({ length: 256 }, () => alphabet[randomInt(64)]).join(''),
        time: '2026-01-10T12:00:00Z',
      })),
    }),
  });
  const accepting = async (config?: string) => {
    const server = await startNatsServer(config === undefined ? {} : { config });
    servers.push(server);
    const connection = await connect({ servers: server.url });
    connections.push(connection);
    const queue = new JetStreamJobQueue<UpdatePayload>({ name: 'REPORTING_UPDATES', subjectPrefix: 'reporting.updates', connection });
    queues.push(queue);
    const records = new JobRecords(events);
    return { queue, records, updates: new ReportingUpdates(queue, records, new IdempotencyKeys(events)) };
  };

  beforeAll(() => {
    events = createEventStore({ dataDir: dir.path });
  });

  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
    await Promise.all(connections.map((connection) => connection.close()));
    await Promise.all(servers.map((server) => server.stop()));
    await events.close();
    dir.remove();
  });

  it('accepts it on a nats-server with the shipped configuration (max_payload 8 MiB)', async () => {
    const { queue, records, updates } = await accepting(natsLimitsConfig());
    const answer = await updates.accept(context, largest());
    expect(await queue.depth()).toBe(1);
    expect(await records.get(context.accountId, answer.jobIds[0])).toMatchObject({ status: 'queued', type: 'conversions', counts: { rows: 10_000 } });
  });

  it("refuses it with a 413 REPORTING.UPDATE_TOO_LARGE naming the bound on nats-server's 1 MB default, queueing and recording nothing", async () => {
    const { queue, updates } = await accepting();
    const before = await events.headPosition();
    const refusal = await updates.accept(context, largest()).catch((error: ServiceError) => error);
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal).toMatchObject({ status: 413, code: 'REPORTING.UPDATE_TOO_LARGE' });
    expect((refusal as ServiceError).message).toContain(`limit of ${1024 * 1024 - 1024} bytes`);
    expect(await queue.depth()).toBe(0);
    expect(await events.countEvents({ after: before, streamNamePrefixes: [`reportingjob-${context.accountId}.`], limit: 10 })).toBe(0);
  });
});
