import { FUNNEL_NATS_LAYOUT, createNatsUsers, currentNatsUser, natsAccessOptions, natsAuthorizationConfig, natsInboxPrefixOf } from '@funnel/platform';
import { HitsStreamConsumer, createHitStore, ingestHits, type HitStore } from '@funnel/reporting-feature';
import { startNatsServer, tempDir, type RunningNatsServer, type TempDir } from '@funnel/testing';
import { connect, type NatsConnection } from 'nats';
import { ACCOUNT, WINDOW, eventually, someHits } from './fixtures';
import { ImmediateHitSink } from './immediate-hit-sink';
import { JetStreamHitWriter } from './jetstream-hit-writer';

/** The stream HITS with the NATS users of the deployment: reporting-service creates and consumes it, the edge only publishes. */
describe('the stream HITS under the apps’ NATS permissions', () => {
  const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
  let server: RunningNatsServer;
  let dir: TempDir;
  let store: HitStore;
  const connections: NatsConnection[] = [];

  beforeAll(async () => {
    server = await startNatsServer({ config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users) });
    dir = tempDir('hits-permissions');
    store = await createHitStore({ dataDir: dir.path });
  });
  afterAll(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close()));
    await store.close();
    dir.remove();
    await server.stop();
  });

  const connectAs = async (app: string) => {
    const { user, password } = currentNatsUser(users, app);
    const inboxPrefix = natsInboxPrefixOf(FUNNEL_NATS_LAYOUT, app);
    const connection = await connect({ servers: server.url, ...natsAccessOptions({ user, password, ...(inboxPrefix ? { inboxPrefix } : {}) }) });
    connections.push(connection);
    return connection;
  };

  it('lets reporting-service create and consume the stream, and the edge publish its hits there and nothing else of JetStream', async () => {
    const edge = await connectAs('tracking-edge');
    const edgeJsm = await edge.jetstreamManager({ checkAPI: false });
    await expect(edgeJsm.streams.add({ name: 'HITS', subjects: ['hits.*'] })).rejects.toThrow();

    const reporting = new HitsStreamConsumer({
      connection: await connectAs('reporting-service'),
      ingest: (inputs) => ingestHits(store, inputs),
      maxAgeMs: 3600_000,
      maxBytes: 0,
      duplicateWindowMs: 60_000,
      batchWaitMs: 20,
    });
    await reporting.start();
    try {
      const sink = new ImmediateHitSink(new JetStreamHitWriter({ connection: edge }));
      await Promise.all([sink.record(someHits(10)), sink.record(someHits(10, 10))]);
      await sink.close();
      // An edge before hit batches (a rolling deploy) still publishes a hit a message to the stream HITS.
      const [older] = someHits(1, 20);
      await edge.jetstream().publish(`hits.${ACCOUNT}`, JSON.stringify(older), { msgID: older.hitId });
      await eventually(() => reporting.acknowledged >= 21, 'the hits are stored');
      expect(await store.countHits(ACCOUNT, WINDOW)).toBe(21);
    } finally {
      await reporting.close();
    }
  });
});
