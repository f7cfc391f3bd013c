import { randomInt } from 'node:crypto';
import { NATS_MAX_PAYLOAD_BYTES, natsLimitsConfig } from '@funnel/platform';
import { startNatsServer, type RunningNatsServer } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { JOB_ENCODING_HEADER, JetStreamJobQueue } from './jetstream-job-queue';
import { JobTooLargeError, type JobDelivery, type JobEnvelope } from './job-queue';
import { describeJobQueueContract, waitFor } from './job-queue.contract';

let server: RunningNatsServer;

beforeAll(async () => {
  server = await startNatsServer();
});

afterAll(async () => {
  await server.stop();
});

const connectToServer = () => connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });

describeJobQueueContract('JetStream', async () => {
  const connections: NatsConnection[] = [];
  return {
    // Each instance has its own connection, as each replica of the service has.
    open: async (options) => {
      const connection = await connectToServer();
      connections.push(connection);
      return new JetStreamJobQueue({ ...options, connection });
    },
    restart: () => server.restart(),
    cleanup: async () => {
      await Promise.all(connections.splice(0).map((connection) => connection.close()));
    },
  };
});

describe('JetStreamJobQueue', () => {
  const options = { ackWaitMs: 1000, backoffMs: [50] };
  const envelope = (n: number): JobEnvelope<{ n: number }> => ({
    jobId: `job-${n}`,
    type: 'conversions',
    accountId: 'account-1',
    payload: { n },
    queuedAt: '2026-01-01T00:00:00.000Z',
  });
  const connections: NatsConnection[] = [];
  const queues: JetStreamJobQueue<{ n: number }>[] = [];
  const open = async (name: string, extra: { maxAttempts?: number; durableName?: string; maxRunMs?: number } = {}) => {
    const connection = await connectToServer();
    connections.push(connection);
    const queue = new JetStreamJobQueue<{ n: number }>({ ...options, ...extra, name, subjectPrefix: `test.${name.toLowerCase()}`, connection });
    queues.push(queue);
    return { queue, connection };
  };

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.close()));
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
  });

  it("retakes the job of a replica that died mid-job once its lease ran out, and the account's later job follows it", async () => {
    // A healthy handler would be kept alive for a minute: only the replica's death ends the lease.
    const dead = await open('CRASHED', { maxRunMs: 60_000 });
    await dead.queue.enqueue([envelope(1), envelope(2)]);
    const taken: number[] = [];
    let release!: () => void;
    const hung = new Promise<void>((resolve) => (release = resolve));
    await dead.queue.consume(async (delivery) => {
      taken.push(delivery.job.payload.n);
      await hung;
    });
    await waitFor(() => taken.length === 1);
    // The process dies: no acknowledgement, no more in-progress signals.
    await dead.connection.close();

    const alive = await open('CRASHED', { maxRunMs: 60_000 });
    const seen: [number, number][] = [];
    await alive.queue.consume(
      async (delivery) => {
        if (!(await delivery.wait(delivery.untilFirstOfAccount(10_000)))) throw new Error('not first of its account');
        seen.push([delivery.job.payload.n, delivery.attempt]);
      },
      { concurrency: 2 },
    );
    await waitFor(async () => seen.length === 2 && (await alive.queue.depth()) === 0);
    expect(taken).toEqual([1]);
    expect(seen).toEqual([
      [1, 2],
      [2, 1],
    ]);
    // Lets the dead replica's handler end, so closing it does not wait forever.
    release();
  });

  it('creates a work-queue stream with file storage and one durable consumer that every replica reuses', async () => {
    const first = await open('REPORTING_UPDATES');
    const second = await open('REPORTING_UPDATES');
    await first.queue.enqueue([envelope(1)]);
    const seen: number[] = [];
    await first.queue.consume(async (delivery) => void seen.push(delivery.job.payload.n));
    await second.queue.consume(async (delivery) => void seen.push(delivery.job.payload.n));
    await second.queue.enqueue([envelope(2), envelope(3)]);
    await waitFor(async () => seen.length === 3 && (await first.queue.depth()) === 0);
    expect(seen.sort()).toEqual([1, 2, 3]);

    const jsm = await first.connection.jetstreamManager();
    const stream = await jsm.streams.info('REPORTING_UPDATES');
    expect(stream.config).toMatchObject({ subjects: ['test.reporting_updates.>'], retention: 'workqueue', storage: 'file', duplicate_window: 120_000_000_000 });
    const consumers = await jsm.consumers.list('REPORTING_UPDATES').next();
    expect(consumers.map((consumer) => consumer.config)).toEqual([
      expect.objectContaining({ durable_name: 'workers', ack_policy: 'explicit', ack_wait: 1_000_000_000, max_deliver: 6 }),
    ]);
  });

  it('drops a message that is not a job at once (terminated, never delivered again) and takes the jobs after it', async () => {
    const { queue, connection } = await open('NOT_A_JOB');
    await queue.enqueue([envelope(1)]);
    await connection.jetstream().publish('test.not_a_job.conversions.account-1', new TextEncoder().encode('{not json'));
    await queue.enqueue([envelope(2)]);
    const seen: number[] = [];
    await queue.consume(async (delivery) => void seen.push(delivery.job.payload.n));
    // A message left unacknowledged stays in the stream (delivered again each ack wait, up to max_deliver).
    await waitFor(async () => seen.length === 2 && (await queue.depth()) === 0);
    expect(seen).toEqual([1, 2]);
  });

  it('gives the job of a replica whose connection died mid-job to another replica after the ack wait', async () => {
    const dying = await open('CRASH_TEST');
    await dying.queue.enqueue([envelope(1)]);
    const taken: JobDelivery<{ n: number }>[] = [];
    await dying.queue.consume(async (delivery) => {
      taken.push(delivery);
      await new Promise(() => undefined);
    });
    await waitFor(() => taken.length === 1);
    // The process is gone: its connection drops without an ack.
    await dying.connection.close();
    queues.splice(queues.indexOf(dying.queue), 1);

    const survivor = await open('CRASH_TEST');
    const seen: JobDelivery<{ n: number }>[] = [];
    await survivor.queue.consume(async (delivery) => void seen.push(delivery));
    await waitFor(async () => seen.length === 1 && (await survivor.queue.depth()) === 0);
    expect(seen).toEqual([{ job: envelope(1), attempt: 2 }]);
  });

  it('keeps consuming across a restart of nats-server, losing no accepted job', async () => {
    const { queue } = await open('RESTART_TEST');
    await queue.enqueue([envelope(1), envelope(2)]);
    const seen: number[] = [];
    await server.restart();
    await queue.consume(async (delivery) => void seen.push(delivery.job.payload.n));
    await waitFor(() => seen.length === 2);
    await server.restart();
    await waitFor(async () => {
      try {
        await queue.enqueue([envelope(3)]);
        return true;
      } catch {
        return false;
      }
    });
    await waitFor(async () => seen.length === 3 && (await queue.depth()) === 0);
    expect(seen).toEqual([1, 2, 3]);
  });
});

/** The largest update the spec allows: 10,000 conversion rows with 256-character transaction ids. */
describe('JetStreamJobQueue and the largest update', () => {
  type Row = { hitId: string; payout: string; transactionId: string; time: string };
  const randomText = (alphabet: (i: number) => string) => Array.from({ length: 256 }, (_, i) => alphabet(i)).join('');
  /** Random base64-like ASCII, and random non-ASCII characters of the Basic Multilingual Plane (3 bytes each in UTF-8, the least compressible). */
  const ascii = () => randomText(() => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'[randomInt(64)]);
  const bmp = () => randomText(() => String.fromCharCode(randomInt(0x800, 0xd800)));
  const update = (transactionId: () => string): JobEnvelope<{ hits: Row[] }> => ({
    jobId: `large-${randomInt(1e9)}`,
    type: 'conversions',
    accountId: 'ACCOUNT00001',
    queuedAt: '2026-01-01T00:00:00.000Z',
    payload: {
      hits: Array.from({ length: 10_000 }, (_, i) => ({
        hitId: `HIT${String(i).padStart(9, '0')}`,
        payout: '123456789.123456',
        transactionId: transactionId(),
        time: '2026-11-25T23:59:59.999Z',
      })),
    },
  });
  const connections: NatsConnection[] = [];
  const queues: JetStreamJobQueue<{ hits: Row[] }>[] = [];
  const servers: RunningNatsServer[] = [];
  const open = async (url: string) => {
    const connection = await connect({ servers: url });
    connections.push(connection);
    const queue = new JetStreamJobQueue<{ hits: Row[] }>({ name: 'LARGE', subjectPrefix: 'large.jobs', connection });
    queues.push(queue);
    return { queue, connection };
  };

  afterEach(async () => {
    await Promise.all(queues.splice(0).map((queue) => queue.close()));
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  it('stores it gzip-compressed on a server with the shipped max_payload and delivers it intact, even of random non-ASCII text', async () => {
    const limited = await startNatsServer({ config: natsLimitsConfig() });
    servers.push(limited);
    const { queue, connection } = await open(limited.url);
    expect(connection.info?.max_payload).toBe(NATS_MAX_PAYLOAD_BYTES);
    const jobs = [update(ascii), update(bmp)];
    expect(Buffer.byteLength(JSON.stringify(jobs[1]))).toBeGreaterThan(NATS_MAX_PAYLOAD_BYTES);
    expect(await queue.enqueue(jobs)).toEqual({ duplicates: [] });

    const stored = await (await connection.jetstreamManager()).streams.getMessage('LARGE', { seq: 2 });
    expect(stored.header.get(JOB_ENCODING_HEADER)).toBe('gzip');
    expect(stored.data.length).toBeLessThan(NATS_MAX_PAYLOAD_BYTES);

    const seen: JobEnvelope<{ hits: Row[] }>[] = [];
    await queue.consume(async (delivery) => void seen.push(delivery.job));
    await waitFor(async () => seen.length === 2 && (await queue.depth()) === 0);
    expect(seen).toEqual(jobs);
  });

  it("refuses it with a JobTooLargeError naming the bound on a server left at nats-server's 1 MB default", async () => {
    const { queue } = await open(server.url);
    const job = update(ascii);
    const refusal = await queue.enqueue([job]).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(JobTooLargeError);
    expect(refusal).toMatchObject({ jobId: job.jobId, limit: 1024 * 1024 - 1024 });
    expect((refusal as JobTooLargeError).bytes).toBeGreaterThan((refusal as JobTooLargeError).limit);
    expect(await queue.depth()).toBe(0);
  });
});
