import { randomBytes } from 'node:crypto';
import { ASSET_EVENTS_RELAY_BUCKET, EDGE_SESSIONS_BUCKET } from '@funnel/contracts';
import { FUNNEL_NATS_LAYOUT, createNatsUsers, currentNatsUser, natsAccessOptions, natsAuthorizationConfig, natsInboxPrefixOf } from '@funnel/platform';
import { type RunningNatsServer, startNatsServer } from '@funnel/testing';
import { type NatsConnection, connect } from 'nats';
import { KvSessionStore } from './kv-session-store';
import { describeSessionStoreContract, sampleSession } from './session-store.contract';

let server: RunningNatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server.stop();
});

describeSessionStoreContract('JetStream KV', async () => {
  // A bucket per test, as fresh as the embedded store's file.
  const bucket = `SESSIONS_${randomBytes(4).toString('hex')}`;
  const connections: NatsConnection[] = [];
  return {
    // Each instance has its own connection, as each edge replica has.
    open: async ({ ttlMs }) => {
      const connection = await connect({ servers: server.url });
      connections.push(connection);
      return KvSessionStore.open({ connection, ttlMs, bucket });
    },
    cleanup: async () => {
      const connection = connections[0];
      if (connection) await (await connection.jetstreamManager()).streams.delete(`KV_${bucket}`);
      await Promise.all(connections.splice(0).map((nc) => nc.close()));
    },
  };
});

describe('KvSessionStore', () => {
  const connections: NatsConnection[] = [];
  afterEach(async () => {
    await Promise.all(connections.splice(0).map((nc) => nc.close()));
  });
  const connectTo = async (url: string, options: object = {}) => {
    const nc = await connect({ servers: url, ...options });
    connections.push(nc);
    return nc;
  };

  it('keeps sessions under `<accountId>.<visitorId>`, one revision each, for its TTL', async () => {
    const nc = await connectTo(server.url);
    const bucket = `SESSIONS_${randomBytes(4).toString('hex')}`;
    const store = await KvSessionStore.open({ connection: nc, ttlMs: 90 * 60_000, bucket });
    const session = sampleSession();
    await store.put('ACC1', session);
    await store.put('ACC1', { ...session, currentNode: 'N00000000002' });
    const kv = await nc.jetstream().views.kv(bucket);
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    expect(keys).toEqual([`ACC1.${session.visitorId}`]);
    const status = await kv.status();
    expect(status).toMatchObject({ history: 1, ttl: 90 * 60_000, values: 1 });
  });

  it('refuses a put its bucket could not store (the redirect is then not answered), and stores the next ones once it can', async () => {
    const nc = await connectTo(server.url);
    const bucket = `SESSIONS_${randomBytes(4).toString('hex')}`;
    const store = await KvSessionStore.open({ connection: nc, ttlMs: 60 * 60_000, bucket, timeoutMs: 1000 });
    const session = sampleSession();
    // Many puts at once (a burst of visitors): each is answered once stored.
    const visitors = Array.from({ length: 50 }, (_, i) => ({ ...session, visitorId: `V${String(i).padStart(11, '0')}` }));
    await Promise.all(visitors.map((visitor) => store.put('ACC1', visitor)));
    expect(await store.get('ACC1', visitors[49].visitorId)).toEqual(visitors[49]);
    await (await nc.jetstreamManager()).streams.delete(`KV_${bucket}`);
    await expect(store.put('ACC1', session)).rejects.toThrow();
    await KvSessionStore.open({ connection: nc, ttlMs: 60 * 60_000, bucket });
    await store.put('ACC1', session);
    expect(await store.get('ACC1', session.visitorId)).toEqual(session);
  });

  it('sets the max age of a bucket made with another SESSION_TTL', async () => {
    const nc = await connectTo(server.url);
    const bucket = `SESSIONS_${randomBytes(4).toString('hex')}`;
    await KvSessionStore.open({ connection: nc, ttlMs: 24 * 3_600_000, bucket });
    const session = sampleSession();
    await (await KvSessionStore.open({ connection: nc, ttlMs: 24 * 3_600_000, bucket })).put('ACC1', session);
    const store = await KvSessionStore.open({ connection: nc, ttlMs: 60_000, bucket });
    expect((await (await nc.jetstream().views.kv(bucket)).status()).ttl).toBe(60_000);
    expect(await store.get('ACC1', session.visitorId)).toEqual(session);
  });

  it('keeps its sessions across a restart of nats-server', async () => {
    const nc = await connectTo(server.url, { maxReconnectAttempts: -1, reconnectTimeWait: 100 });
    const store = await KvSessionStore.open({ connection: nc, ttlMs: 60 * 60_000, bucket: `SESSIONS_${randomBytes(4).toString('hex')}` });
    const session = sampleSession();
    await store.put('ACC1', session);
    await server.restart();
    let read: unknown;
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        read = await store.get('ACC1', session.visitorId);
        break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    expect(read).toEqual(session);
  });

  it('works with nothing but the tracking edge’s NATS permissions, which reach no other bucket', async () => {
    const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
    const secured = await startNatsServer({ config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users) });
    try {
      const accessOf = (app: string) => ({ ...currentNatsUser(users, app), inboxPrefix: natsInboxPrefixOf(FUNNEL_NATS_LAYOUT, app) });
      const edge = await connectTo(secured.url, natsAccessOptions(accessOf('tracking-edge')));
      const store = await KvSessionStore.open({ connection: edge, ttlMs: 24 * 3_600_000, timeoutMs: 1000 });
      const session = sampleSession();
      await store.put('ACC1', session);
      expect(await store.get('ACC1', session.visitorId)).toEqual(session);
      // A second edge replica shares the bucket.
      const replica = await connectTo(secured.url, natsAccessOptions(accessOf('tracking-edge')));
      expect(await (await KvSessionStore.open({ connection: replica, ttlMs: 24 * 3_600_000, timeoutMs: 1000 })).get('ACC1', session.visitorId)).toEqual(
        session,
      );
      // The relay's bucket (assets-service) is out of its reach, to read or to make.
      await expect(KvSessionStore.open({ connection: edge, ttlMs: 60_000, timeoutMs: 1000, bucket: ASSET_EVENTS_RELAY_BUCKET })).rejects.toThrow(
        /Permissions Violation/,
      );
      await expect(KvSessionStore.open({ connection: edge, ttlMs: 60_000, timeoutMs: 1000, bucket: `${EDGE_SESSIONS_BUCKET}_2` })).rejects.toThrow(
        /Permissions Violation/,
      );
    } finally {
      await Promise.all(connections.splice(0).map((nc) => nc.close()));
      await secured.stop();
    }
  });
});
