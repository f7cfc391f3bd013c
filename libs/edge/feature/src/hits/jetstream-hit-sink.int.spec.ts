import {
  HitsStreamConsumer,
  createHitStore,
  ensureHitsStream,
  ingestHits,
  type HitStore,
  type HitsStreamConsumerOptions,
  type IngestHitsResult,
} from '@funnel/reporting-feature';
import { startNatsServer, tempDir, type RunningNatsServer, type TempDir } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { ACCOUNT, WINDOW, eventually, someHits } from './fixtures';
import { ImmediateHitSink } from './immediate-hit-sink';
import { JetStreamHitWriter } from './jetstream-hit-writer';

describe('the JetStream hit sink and reporting’s consumer of the streams HITS and HITS_BATCHES', () => {
  let server: RunningNatsServer;
  let dir: TempDir;
  let store: HitStore;
  const connections: NatsConnection[] = [];
  const closers: (() => Promise<void>)[] = [];
  const settings = { maxAgeMs: 3600_000, maxBytes: 0, duplicateWindowMs: 60_000, batchWaitMs: 20, retryDelayMs: 50 };

  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server.stop();
  });
  beforeEach(async () => {
    dir = tempDir('hits-stream');
    store = await createHitStore({ dataDir: dir.path });
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await store.close();
    dir.remove();
  });

  const connection = async () => {
    const opened = await connect({ servers: server.url });
    connections.push(opened);
    return opened;
  };
  const consumer = async (stream: string, ingest: (inputs: unknown[]) => Promise<IngestHitsResult>, more: Partial<HitsStreamConsumerOptions> = {}) => {
    const started = new HitsStreamConsumer({ ...settings, ...more, stream, subjectPrefix: stream.toLowerCase(), connection: await connection(), ingest });
    await started.start();
    closers.push(() => started.close());
    return started;
  };
  const sink = async (stream: string, maxInFlight?: number) => {
    // As distributed mode records them (jetStreamHitSink): each request's hits published at once.
    const opened = new ImmediateHitSink(new JetStreamHitWriter({ connection: await connection(), stream, subjectPrefix: stream.toLowerCase(), maxInFlight }));
    closers.push(() => opened.close());
    return opened;
  };

  it('stores every recorded hit in the warehouse exactly once, also when the edge records it again', async () => {
    const reporting = await consumer('HITS_ONCE', (inputs) => ingestHits(store, inputs));
    const edge = await sink('HITS_ONCE');
    const hits = someHits(600);
    // 100 requests of 6 hits each at once, then a retry of the first 200 hits.
    await Promise.all(Array.from({ length: 100 }, (_, i) => edge.record(hits.slice(6 * i, 6 * i + 6))));
    await edge.record(hits.slice(0, 200));
    await eventually(async () => (await store.countHits(ACCOUNT, WINDOW)) >= 600 && reporting.acknowledged >= 600, 'the hits are stored');
    await reporting.close();
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(600);
    const stored = await store.getHits(ACCOUNT, [hits[0].hitId, hits[599].hitId]);
    expect(stored.map((hit) => hit.hitId).sort()).toEqual([hits[0].hitId, hits[599].hitId]);
  });

  it('delivers again the hits of a batch whose acknowledgement was lost, and the warehouse counts them once', async () => {
    let calls = 0;
    // The first batch is stored, then the process "dies" before acknowledging: nak-ed, redelivered.
    const reporting = await consumer('HITS_REDELIVERED', async (inputs) => {
      const result = await ingestHits(store, inputs);
      if (calls++ === 0) throw new Error('crashed after storing');
      return result;
    });
    const edge = await sink('HITS_REDELIVERED');
    await edge.record(someHits(50));
    await eventually(() => reporting.acknowledged >= 50, 'the hits are acknowledged');
    expect(calls).toBeGreaterThan(1);
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(50);
  });

  it('keeps recorded hits in the stream while reporting is down, and stores them once it starts', async () => {
    // Reporting creates the stream, then stops.
    const first = await consumer('HITS_LATER', (inputs) => ingestHits(store, inputs));
    await first.close();
    const edge = await sink('HITS_LATER');
    await edge.record(someHits(40));
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(0);
    const second = await consumer('HITS_LATER', (inputs) => ingestHits(store, inputs));
    await eventually(() => second.acknowledged >= 40, 'the hits are stored');
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(40);
  });

  it('refuses to record when the stream does not exist (the redirect must not be answered)', async () => {
    const edge = await sink('HITS_MISSING');
    await expect(edge.record(someHits(1))).rejects.toThrow();
  });

  it('resolves a record only once the stream holds every one of its hits, also with more hits than may be in flight', async () => {
    const jsm = await (await connection()).jetstreamManager();
    await ensureHitsStream(jsm, { ...settings, stream: 'HITS_HELD', subjectPrefix: 'hits_held' });
    const edge = await sink('HITS_HELD', 8);
    const hits = someHits(300);
    // 30 requests of 10 hits at once, through at most 8 unacknowledged publishes: a message each, in the stream of batches.
    await Promise.all(Array.from({ length: 30 }, (_, i) => edge.record(hits.slice(10 * i, 10 * i + 10))));
    expect((await jsm.streams.info('HITS_HELD_BATCHES')).state.messages).toBe(30);
    // The stream an older reporting-service consumes gets none of them.
    expect((await jsm.streams.info('HITS_HELD')).state.messages).toBe(0);
    // Each message is its request's hits, whole (the visitor they share included).
    const stored = await jsm.streams.getMessage('HITS_HELD_BATCHES', { last_by_subj: `hits_held.batch.${ACCOUNT}` });
    expect(JSON.parse(new TextDecoder().decode(stored.data))).toEqual(JSON.parse(JSON.stringify(hits.slice(290))));
    await edge.record(someHits(1, 300));
    expect((await jsm.streams.info('HITS_HELD_BATCHES')).state.messages).toBe(31);
  });

  it('publishes a request’s hits once per account, a batch sent again within the duplicate window stored once', async () => {
    const jsm = await (await connection()).jetstreamManager();
    await ensureHitsStream(jsm, { ...settings, stream: 'HITS_TWICE', subjectPrefix: 'hits_twice' });
    const writer = new JetStreamHitWriter({ connection: await connection(), stream: 'HITS_TWICE', subjectPrefix: 'hits_twice' });
    closers.push(async () => writer.close());
    const other = someHits(2, 10).map((hit) => ({ ...hit, accountId: 'ACCOUNT00002' }));
    const hits = [...someHits(3), ...other];
    await writer.write(hits);
    await writer.write(hits);
    expect((await jsm.streams.info('HITS_TWICE_BATCHES')).state.messages).toBe(2);
    const reporting = await consumer('HITS_TWICE', (inputs) => ingestHits(store, inputs));
    await eventually(() => reporting.acknowledged >= 5, 'the hits are stored');
    expect(reporting.acknowledged).toBe(5);
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(3);
    expect(await store.countHits('ACCOUNT00002', WINDOW)).toBe(2);
  });

  it('splits a write into messages of at most maxBatchHits hits, each stored', async () => {
    const jsm = await (await connection()).jetstreamManager();
    await ensureHitsStream(jsm, { ...settings, stream: 'HITS_SPLIT', subjectPrefix: 'hits_split' });
    const writer = new JetStreamHitWriter({ connection: await connection(), stream: 'HITS_SPLIT', subjectPrefix: 'hits_split', maxBatchHits: 4 });
    closers.push(async () => writer.close());
    await writer.write(someHits(10));
    expect((await jsm.streams.info('HITS_SPLIT_BATCHES')).state.messages).toBe(3);
    await consumer('HITS_SPLIT', (inputs) => ingestHits(store, inputs));
    await eventually(async () => (await store.countHits(ACCOUNT, WINDOW)) >= 10, 'the hits are stored');
  });

  it('stores the hits of older edges (a hit a message) and of batches alike, in ingests of at most batchMax hits', async () => {
    const connected = await connection();
    await ensureHitsStream(await connected.jetstreamManager(), { ...settings, stream: 'HITS_MIXED', subjectPrefix: 'hits_mixed' });
    const hits = someHits(25);
    // An edge before batches: one message per hit on `hits.<account>`, Nats-Msg-Id = hit id.
    for (const hit of hits.slice(0, 5)) await connected.jetstream().publish(`hits_mixed.${ACCOUNT}`, JSON.stringify(hit), { msgID: hit.hitId });
    const edge = await sink('HITS_MIXED');
    await Promise.all([0, 1, 2, 3].map((i) => edge.record(hits.slice(5 + 5 * i, 10 + 5 * i))));
    // Everything is waiting in the streams before reporting starts: its first pulls deliver more than batchMax hits.
    const sizes: number[] = [];
    const reporting = await consumer(
      'HITS_MIXED',
      (inputs) => {
        sizes.push(inputs.length);
        return ingestHits(store, inputs);
      },
      { batchMax: 8 },
    );
    await eventually(() => reporting.acknowledged >= 25, 'the hits are stored');
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(25);
    // A batch's hits are never split between ingests, and an ingest never exceeds batchMax hits.
    expect(Math.max(...sizes)).toBeLessThanOrEqual(8);
  });

  it('stores the good hits of a batch holding a bad one, drops a message that is not JSON, and goes on', async () => {
    const js = (await connection()).jetstream();
    const errors: unknown[] = [];
    const reporting = await consumer('HITS_BAD', (inputs) => ingestHits(store, inputs), { onError: (error) => errors.push(error) });
    const [first, second, third] = someHits(3);
    await js.publish(`hits_bad.batch.${ACCOUNT}`, '[not json');
    await js.publish(`hits_bad.batch.${ACCOUNT}`, JSON.stringify([first, { ...second, time: 'never' }, third]));
    await eventually(() => reporting.acknowledged >= 3, 'the batch is acknowledged');
    const jsm = await (await connection()).jetstreamManager();
    // Nothing is left to deliver again: the consumer holds no message unacknowledged or pending.
    await eventually(async () => {
      const info = await jsm.consumers.info('HITS_BAD_BATCHES', 'reporting-hit-batches');
      return info.num_ack_pending === 0 && info.num_pending === 0;
    }, 'both messages are done with');
    expect((await store.getHits(ACCOUNT, [first.hitId, second.hitId, third.hitId])).map((hit) => hit.hitId).sort()).toEqual([first.hitId, third.hitId]);
    expect(errors.map((error) => (error as Error).constructor.name)).toEqual(['StreamHitsRefusedError', 'StreamHitsRefusedError']);
  });

  it('records again after a refused publish, once the stream exists', async () => {
    const edge = await sink('HITS_LATE');
    await expect(edge.record(someHits(3))).rejects.toThrow();
    const jsm = await (await connection()).jetstreamManager();
    await ensureHitsStream(jsm, { ...settings, stream: 'HITS_LATE', subjectPrefix: 'hits_late' });
    await edge.record(someHits(3));
    expect((await jsm.streams.info('HITS_LATE_BATCHES')).state.messages).toBe(1);
  });
});
