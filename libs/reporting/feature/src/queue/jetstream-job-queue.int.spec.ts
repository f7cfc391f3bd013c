import { startNatsServer, type RunningNatsServer } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { JetStreamJobQueue } from './jetstream-job-queue';
import type { JobDelivery, JobEnvelope } from './job-queue';
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
  const open = async (name: string, extra: { maxAttempts?: number; durableName?: string } = {}) => {
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
