import { join } from 'node:path';
import { type JsMsg, type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_RELAY_BUCKET, ASSET_EVENTS_STREAM, ASSET_KINDS, type AssetEventMessage, generateAssetId } from '@funnel/contracts';
import { type NewEvent, SqliteEventStore, parsePosition, positionToString } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { kvCompareAndSet } from '@funnel/platform';
import { type RunningNatsServer, startNatsServer, tempDir, waitUntil } from '@funnel/testing';
import { AssetSecretBox } from '../secrets/asset-secret-box';
import { AssetEventRelay, type AssetEventRelayOptions } from './asset-event-relay';

const registry = new AssetRegistry(ASSET_KINDS);
const secrets = AssetSecretBox.ephemeral();
const ACCOUNT = 'ACCOUNT00001';
const meta = (n = 0) => ({ accountId: ACCOUNT, actorId: 'USER00000001', correlationId: `corr-${n}`, occurredAt: '2026-11-25T10:00:00.000Z', schemaVersion: 1 });

interface StreamMessage {
  subject: string;
  msgId: string | undefined;
  payload: AssetEventMessage;
  raw: string;
}

/** Every message the stream holds, in stream order, as a consumer reading it from the start sees them. */
async function readStream(nc: NatsConnection): Promise<StreamMessage[]> {
  const jsm = await nc.jetstreamManager();
  const count = (await jsm.streams.info(ASSET_EVENTS_STREAM)).state.messages;
  const messages: StreamMessage[] = [];
  if (count === 0) return messages;
  const consumer = await nc.jetstream().consumers.get(ASSET_EVENTS_STREAM);
  const iterator = await consumer.consume();
  for await (const m of iterator as AsyncIterable<JsMsg>) {
    messages.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), payload: m.json<AssetEventMessage>(), raw: m.string() });
    if (messages.length >= count) break;
  }
  await iterator.close();
  return messages;
}

async function streamCount(nc: NatsConnection): Promise<number> {
  return (await (await nc.jetstreamManager()).streams.info(ASSET_EVENTS_STREAM).catch(() => undefined))?.state.messages ?? 0;
}

/** Appends `perAsset` events to each of `assets` visitor tags, interleaved across assets (as concurrent edits are). */
async function appendTagEdits(store: SqliteEventStore, assets: string[], perAsset: number, firstRevision = 0): Promise<number> {
  let appended = 0;
  for (let round = 0; round < perAsset; round++) {
    for (const idTag of assets) {
      const revision = firstRevision + round;
      const record = { idTag, tagName: `tag ${idTag} v${revision}`, status: 'active', idCategory: '', color: '#00ff00' };
      const event: NewEvent = { type: revision === 0 ? 'VisitorTagCreated' : 'VisitorTagUpdated', data: { record }, metadata: meta(revision) };
      await store.append(registry.streamName('visitortag', ACCOUNT, idTag), [event], { expectedRevision: revision === 0 ? 'no_stream' : revision - 1 });
      appended++;
    }
  }
  return appended;
}

describe('AssetEventRelay against nats-server with JetStream', () => {
  let nats: RunningNatsServer;
  let observer: NatsConnection;
  let store: SqliteEventStore;
  const dir = tempDir('asset-event-relay');
  const relays: AssetEventRelay[] = [];
  const connections: NatsConnection[] = [];

  /** A relay on its own connection (kept, so a test can cut it as a crash would). */
  function relay(overrides: Partial<AssetEventRelayOptions> = {}): { relay: AssetEventRelay; connection: () => NatsConnection | undefined } {
    let current: NatsConnection | undefined;
    const created = new AssetEventRelay({
      eventStore: store,
      registry,
      connect: async () => {
        current = await connect({ servers: nats.url });
        connections.push(current);
        return current;
      },
      maxAgeMs: 3_600_000,
      duplicateWindowMs: 120_000,
      leaseTtlMs: 600,
      retryDelayMs: 100,
      checkpointIntervalMs: 50,
      logger: { log: () => undefined, warn: () => undefined, error: () => undefined },
      ...overrides,
    });
    relays.push(created);
    created.start();
    return { relay: created, connection: () => current };
  }

  beforeEach(async () => {
    nats = await startNatsServer({ jetstream: true });
    observer = await connect({ servers: nats.url });
    store = new SqliteEventStore({ filename: join(dir.path, `${generateAssetId()}.sqlite`) });
  });

  afterEach(async () => {
    await Promise.all(relays.splice(0).map((r) => r.stop()));
    await Promise.all(connections.splice(0).map((c) => (c.isClosed() ? undefined : c.close())));
    await observer.close();
    await store.close();
    await nats.stop();
  });

  afterAll(() => dir.remove());

  it('publishes each asset event on assets.events.<kind>.<EventType> with its id as Nats-Msg-Id, the documented payload, and no secret', async () => {
    const idWebhook = generateAssetId();
    const idFunnel = generateAssetId();
    const idTag = generateAssetId();
    const webhook = {
      idWebhookConfig: idWebhook,
      webhookConfigName: 'hook',
      status: 'active',
      idCategory: '',
      url: 'https://example.com/hook',
      basicAuth: { username: 'u', password: secrets.encrypt('basic-auth-clear-text') },
      signingSecret: secrets.encrypt('whsec_signing-clear-text'),
    };
    const middlewareNode = {
      idNode: generateAssetId(),
      nodeName: 'mw',
      nodeType: 'middleware',
      nodeMiddlewareRefParams: {
        idMiddlewareConfig: generateAssetId(),
        destinationOverrides: {
          headers: {},
          basicAuth: { username: 'n', password: secrets.encrypt('node-password-clear') },
          hmacSecret: secrets.encrypt('node-hmac-clear'),
        },
      },
    };
    const funnel = {
      idFunnel,
      funnelName: 'f',
      idFunnelGroup: generateAssetId(),
      status: 'active',
      nodes: [{ idNode: generateAssetId(), nodeType: 'root' }, middlewareNode],
    };
    await store.append(registry.streamName('visitortag', ACCOUNT, idTag), [
      {
        id: '00000000-0000-4000-8000-000000000001',
        type: 'VisitorTagCreated',
        data: { record: { idTag, tagName: 't', status: 'active', idCategory: '' } },
        metadata: meta(1),
      },
      { type: 'VisitorTagArchived', data: {}, metadata: meta(2) },
    ]);
    await store.append(registry.streamName('webhookconfig', ACCOUNT, idWebhook), [
      { type: 'WebhookConfigCreated', data: { record: webhook }, metadata: meta(3) },
    ]);
    await store.append(registry.streamName('funnel', ACCOUNT, idFunnel), [
      { type: 'FunnelCreated', data: { record: funnel }, metadata: meta(4) },
      { type: 'FunnelUpdated', data: { record: { ...funnel, funnelName: 'g' } }, metadata: meta(5) },
    ]);
    // Not an asset stream: never published.
    await store.append('claim-ACCOUNT00001.shortlink.slug.abc', [{ type: 'ClaimTaken', data: {} }]);

    relay();
    await waitUntil(async () => (await streamCount(observer)) === 5, 'the stream holds the 5 asset events');
    const messages = await readStream(observer);

    expect(messages.map((m) => m.subject)).toEqual([
      'assets.events.visitortag.VisitorTagCreated',
      'assets.events.visitortag.VisitorTagArchived',
      'assets.events.webhookconfig.WebhookConfigCreated',
      'assets.events.funnel.FunnelCreated',
      'assets.events.funnel.FunnelUpdated',
    ]);
    const logged = await store.readStream(registry.streamName('visitortag', ACCOUNT, idTag));
    expect(messages[0].msgId).toBe('00000000-0000-4000-8000-000000000001');
    expect(messages[0].payload).toEqual({
      eventId: '00000000-0000-4000-8000-000000000001',
      type: 'VisitorTagCreated',
      kind: 'visitortag',
      accountId: ACCOUNT,
      assetId: idTag,
      revision: 0,
      position: positionToString(logged[0].position),
      occurredAt: '2026-11-25T10:00:00.000Z',
      actor: { userId: 'USER00000001', keyId: null },
      correlationId: 'corr-1',
      data: { record: { idTag, tagName: 't', status: 'active', idCategory: '' } },
    });
    expect(messages[1].payload).toMatchObject({ type: 'VisitorTagArchived', revision: 1, data: {} });
    for (const m of messages) expect(m.msgId).toBe(m.payload.eventId);

    const hook = messages[2].payload.data['record'] as Record<string, any>;
    expect(hook).toMatchObject({ hasBasicAuthPassword: true, hasSigningSecret: true, basicAuth: { username: 'u' } });
    expect(hook.basicAuth).not.toHaveProperty('password');
    expect(hook).not.toHaveProperty('signingSecret');
    const node = (messages[3].payload.data['record'] as { nodes: Record<string, any>[] }).nodes[1];
    expect(node.nodeMiddlewareRefParams.destinationOverrides).toEqual({ headers: {}, basicAuth: { username: 'n' } });
    // Neither the clear text nor the ciphertext of any secret leaves.
    for (const m of messages) {
      expect(m.raw).not.toMatch(/clear|\$secret|aes-256-gcm/);
    }
  });

  it('killed mid-stream and started again, it loses no event and a consumer sees none twice, in order per asset', async () => {
    const assets = Array.from({ length: 40 }, () => generateAssetId());
    const total = await appendTagEdits(store, assets, 100);

    const first = relay({ maxInFlight: 16 });
    await waitUntil(async () => (await streamCount(observer)) >= total / 3, 'a third of the events is in the stream', { intervalMs: 5 });
    // A crash: the connection is gone at once, with publishes in flight and no last checkpoint.
    await first.connection()!.close();
    await first.relay.stop();
    const publishedBeforeTheCrash = await streamCount(observer);
    expect(publishedBeforeTheCrash).toBeLessThan(total);
    const kv = await observer.jetstream().views.kv(ASSET_EVENTS_RELAY_BUCKET);
    const checkpoint = parsePosition((JSON.parse((await kv.get('relay'))!.string()) as { position: string }).position);
    const afterCheckpoint = await store.countEvents({ after: checkpoint, limit: total });

    // The restarted relay waits out the crashed one's lease, then resumes from its checkpoint.
    const second = relay();
    await waitUntil(async () => (await streamCount(observer)) >= total && second.relay.stats.stored + publishedBeforeTheCrash >= total, 'every event is in', {
      timeoutMs: 30_000,
    });
    await waitUntil(async () => (await streamCount(observer)) === total, 'the stream holds each event once');
    const messages = await readStream(observer);
    expect(messages).toHaveLength(total);
    expect(new Set(messages.map((m) => m.payload.eventId)).size).toBe(total);
    const revisions = new Map<string, number[]>();
    for (const m of messages) revisions.set(m.payload.assetId, [...(revisions.get(m.payload.assetId) ?? []), m.payload.revision]);
    for (const idTag of assets) expect(revisions.get(idTag)).toEqual(Array.from({ length: 100 }, (_, n) => n));
    // Whatever the crashed relay had sent past its checkpoint was sent again and dropped by JetStream.
    expect(second.relay.stats.stored).toBe(total - publishedBeforeTheCrash);
    // It resumed from the checkpoint: it sent exactly the events after it, not the whole log.
    expect(second.relay.stats.stored + second.relay.stats.duplicates).toBe(afterCheckpoint);
  });

  it('past the duplicate window, what a crashed relay sent after its checkpoint is stored again (nothing is lost)', async () => {
    const assets = Array.from({ length: 10 }, () => generateAssetId());
    const total = await appendTagEdits(store, assets, 20);
    // No checkpoint gets written before the crash: the restarted relay sends everything again.
    const first = relay({ duplicateWindowMs: 1000, checkpointIntervalMs: 60_000, leaseTtlMs: 60_000 });
    await waitUntil(async () => (await streamCount(observer)) === total, 'every event is in');
    await first.connection()!.close();
    await first.relay.stop();
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const second = relay({ duplicateWindowMs: 1000 });
    await waitUntil(async () => second.relay.stats.stored === total, 'the events are sent again', { timeoutMs: 20_000 });
    expect(second.relay.stats.duplicates).toBe(0);
    const messages = await readStream(observer);
    expect(messages).toHaveLength(2 * total);
    // A consumer that keeps the first of each eventId still sees every event once, in order per asset.
    const firstSeen = messages.filter((m, i) => messages.findIndex((other) => other.payload.eventId === m.payload.eventId) === i);
    expect(firstSeen).toHaveLength(total);
    for (const idTag of assets) {
      expect(firstSeen.filter((m) => m.payload.assetId === idTag).map((m) => m.payload.revision)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    }
  });

  it('keeps its checkpoint across restarts: a new relay publishes only what came after it', async () => {
    const assets = Array.from({ length: 10 }, () => generateAssetId());
    const total = await appendTagEdits(store, assets, 20);
    const first = relay();
    await waitUntil(async () => (await streamCount(observer)) === total, 'every event is in');
    await first.relay.stop();
    const kv = await observer.jetstream().views.kv(ASSET_EVENTS_RELAY_BUCKET);
    const lease = JSON.parse((await kv.get('relay'))!.string()) as { holder: string | null; position: string };
    expect(lease).toMatchObject({ holder: null, position: positionToString(await store.headPosition()) });

    const second = relay();
    await waitUntil(async () => second.relay.isActive, 'the new relay is active');
    await appendTagEdits(store, assets, 1, 20);
    await waitUntil(async () => (await streamCount(observer)) === total + assets.length, 'the new events are in');
    await waitUntil(async () => second.relay.stats.stored === assets.length, 'the new relay counted them');
    expect(second.relay.stats).toMatchObject({ stored: assets.length, duplicates: 0 });
  });

  it('runs one active relay across replicas; a standby takes over when it stops', async () => {
    const assets = Array.from({ length: 5 }, () => generateAssetId());
    const a = relay({ leaseTtlMs: 60_000 });
    const b = relay({ leaseTtlMs: 60_000 });
    await waitUntil(async () => a.relay.isActive || b.relay.isActive, 'one relay is active');
    const [active, standby] = a.relay.isActive ? [a, b] : [b, a];
    const first = await appendTagEdits(store, assets, 4);
    await waitUntil(async () => (await streamCount(observer)) === first, 'the events are in');
    expect(standby.relay.isActive).toBe(false);
    expect(standby.relay.stats).toEqual({ stored: 0, duplicates: 0, leases: 0 });

    // A stopping relay lets go of the lease: the standby takes over without waiting out its ttl.
    await active.relay.stop();
    await appendTagEdits(store, assets, 2, 4);
    await waitUntil(async () => (await streamCount(observer)) === first + 10, 'the later events are in');
    expect(standby.relay.isActive).toBe(true);
    expect(standby.relay.stats).toMatchObject({ stored: 10, duplicates: 0, leases: 1 });
  });

  it('steps down when another relay took the lease over, and takes it back once that one stops renewing it', async () => {
    const assets = Array.from({ length: 5 }, () => generateAssetId());
    const first = await appendTagEdits(store, assets, 2);
    const a = relay({ leaseTtlMs: 1500 });
    await waitUntil(async () => (await streamCount(observer)) === first, 'the first events are in');
    const leases = a.relay.stats.leases;
    // Another replica takes over (as after a long pause of this one): its write moves the key's revision on.
    const kv = await observer.jetstream().views.kv(ASSET_EVENTS_RELAY_BUCKET);
    // The relay renews the lease every ttl/3, so a renewal can land between this read and write: read again then.
    await waitUntil(async () => {
      const entry = (await kv.get('relay'))!;
      const takenOver = JSON.stringify({ ...JSON.parse(entry.string()), holder: 'another-replica' });
      return (await kvCompareAndSet(() => kv.update('relay', takenOver, entry.revision))) !== undefined;
    }, 'the other replica wrote the lease');
    await waitUntil(async () => !a.relay.isActive, 'the relay stepped down at its next write');
    // The other replica never renews: after the lease's ttl this one takes over again and goes on.
    await appendTagEdits(store, assets, 1, 2);
    await waitUntil(async () => (await streamCount(observer)) === first + assets.length, 'the later events are in', { timeoutMs: 20_000 });
    expect(a.relay.stats.leases).toBe(leases + 1);
    const messages = await readStream(observer);
    expect(new Set(messages.map((m) => m.payload.eventId)).size).toBe(first + assets.length);
  });

  it('sets the retention and the duplicate window of the stream, and updates them when configured otherwise', async () => {
    const first = relay({ maxAgeMs: 7 * 86_400_000, duplicateWindowMs: 120_000 });
    await waitUntil(async () => first.relay.isActive, 'the relay is active');
    const jsm = await observer.jetstreamManager();
    expect((await jsm.streams.info(ASSET_EVENTS_STREAM)).config).toMatchObject({
      subjects: ['assets.events.>'],
      max_age: 7 * 86_400_000 * 1_000_000,
      duplicate_window: 120_000 * 1_000_000,
    });
    await first.relay.stop();
    const second = relay({ maxAgeMs: 86_400_000, duplicateWindowMs: 60_000 });
    await waitUntil(async () => second.relay.isActive, 'the reconfigured relay is active');
    expect((await jsm.streams.info(ASSET_EVENTS_STREAM)).config).toMatchObject({ max_age: 86_400_000 * 1_000_000, duplicate_window: 60_000 * 1_000_000 });
  });
});
