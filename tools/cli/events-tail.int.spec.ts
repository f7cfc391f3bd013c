import { join, resolve } from 'node:path';
import { type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_STREAM, ASSET_KINDS, generateAssetId } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import {
  DEFAULT_ASSETS_INBOX_PREFIX,
  DEFAULT_GATEWAY_INBOX_PREFIX,
  FUNNEL_NATS_LAYOUT,
  createNatsUsers,
  jetStreamReaderPermissions,
  natsAuthorizationConfig,
  natsUserEnv,
  newNatsPassword,
} from '@funnel/platform';
import { type RunningApp, startAssetsService } from '@funnel/runtime';
import { type RunningChild, type RunningNatsServer, spawnWithLines, startNatsServer, tempDir, waitUntil } from '@funnel/testing';
import { tailAssetEvents } from './events-tail';

const root = resolve(__dirname, '..', '..');
const registry = new AssetRegistry(ASSET_KINDS);
const ACCOUNT = 'ACCOUNT00001';

/** `npm run cli -- events:tail ...` as a child process, its stdout split in lines as they come; `exited` its exit code. */
function tail(args: string[], env: NodeJS.ProcessEnv): Omit<RunningChild, 'exited'> & { exited: Promise<number | null> } {
  const running = spawnWithLines(process.execPath, ['-r', './tools/register.js', 'tools/cli/main.ts', 'events:tail', ...args], { cwd: root, env });
  return { ...running, exited: running.exited.then(({ code }) => code) };
}

async function appendTag(store: SqliteEventStore, name: string): Promise<string> {
  const idTag = generateAssetId();
  await store.append(registry.streamName('visitortag', ACCOUNT, idTag), [
    { type: 'VisitorTagCreated', data: { record: { idTag, tagName: name, status: 'active', idCategory: '' } }, metadata: { accountId: ACCOUNT } },
  ]);
  return idTag;
}

describe('asset events on a secured NATS: assets-service relays as its own user and creates the reader’s consumer, a reader tails (npm run cli -- events:tail)', () => {
  const dir = tempDir('events-tail');
  const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
  const READER = 'events-reader';
  const reader = { user: READER, password: newNatsPassword(), permissions: jetStreamReaderPermissions(READER) };
  let nats: RunningNatsServer;
  let store: SqliteEventStore;
  let assetsService: RunningApp;
  /** The assets service's own user, to look at the stream. */
  let observer: NatsConnection;
  const streamCount = async () => (await (await observer.jetstreamManager()).streams.info(ASSET_EVENTS_STREAM).catch(() => undefined))?.state.messages ?? 0;
  const readerEnv = () => ({ PATH: process.env['PATH'], NATS_URL: nats.url, NATS_USER: reader.user, NATS_PASSWORD: reader.password });
  const userOf = (app: string) => {
    const env = natsUserEnv(users, app);
    return { user: env['NATS_USER'], pass: env['NATS_PASSWORD'] };
  };

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true, config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users, [reader]) });
    // The assets service as deployed, with its own NATS user and nothing more; the test appends to its log from outside.
    assetsService = await startAssetsService({
      ...natsUserEnv(users, 'assets-service'),
      NATS_URL: nats.url,
      DATA_DIR: dir.path,
      ASSET_EVENTS_READERS: READER,
      LOG_LEVEL: 'fatal',
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
    });
    store = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite') });
    observer = await connect({ servers: nats.url, ...userOf('assets-service'), inboxPrefix: DEFAULT_ASSETS_INBOX_PREFIX });
  });

  afterAll(async () => {
    await observer.close();
    await assetsService.close();
    await store.close();
    await nats.stop();
    dir.remove();
  });

  it('prints the kind’s events the reader has not acknowledged yet, then each new one; the next run resumes after them', async () => {
    const first = await appendTag(store, 'before the tail');
    await waitUntil(async () => (await streamCount()) === 1, 'the relay published it', { timeoutMs: 20_000 });
    const running = tail(['--kind', 'visitortag'], readerEnv());
    await waitUntil(async () => running.lines.length >= 1, 'the tail printed the first event', { timeoutMs: 30_000 });
    await store.append(registry.streamName('funnel', ACCOUNT, generateAssetId()), [{ type: 'FunnelDeleted', data: {}, metadata: { accountId: ACCOUNT } }]);
    const second = await appendTag(store, 'while tailing');
    await waitUntil(async () => running.lines.length >= 2, 'the tail printed the new event', { timeoutMs: 20_000 });

    const printed = running.lines.map((line) => JSON.parse(line) as { assetId: string; type: string; kind: string });
    expect(printed.map((p) => [p.kind, p.type, p.assetId])).toEqual([
      ['visitortag', 'VisitorTagCreated', first],
      ['visitortag', 'VisitorTagCreated', second],
    ]);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);

    // Everything the first run received was acknowledged (the funnel event too): the next run starts after it.
    const third = await appendTag(store, 'after the first run');
    const again = tail([], readerEnv());
    await waitUntil(async () => again.lines.length >= 1, 'the second run printed an event', { timeoutMs: 30_000 });
    expect((JSON.parse(again.lines[0]) as { assetId: string }).assetId).toBe(third);
    again.child.kill('SIGINT');
    expect(await again.exited).toBe(0);
  });

  it('a reader cannot have the stream delivered anywhere else: no consumer of its own, no pull onto another subject', async () => {
    // Another app's subjects, each watched with that app's own user as the app does: billing-service
    // subscribes to each of its subjects by name in its queue group (nats-server 2.9 delivers a push
    // consumer's messages only where a subscription names the subject).
    const received: string[] = [];
    const billing = await connect({ servers: nats.url, ...userOf('billing-service') });
    for (const subject of ['billing.stolen', 'billing.ephemeral', 'billing.pulled', 'billing.reply']) {
      billing.subscribe(subject, { queue: 'billing', callback: (_error, message) => received.push(`billing ${message.subject}`) });
    }
    const gateway = await connect({ servers: nats.url, ...userOf('gateway'), inboxPrefix: DEFAULT_GATEWAY_INBOX_PREFIX });
    gateway.subscribe(`${DEFAULT_GATEWAY_INBOX_PREFIX}.stolen`, { callback: (_error, message) => received.push(`gateway ${message.subject}`) });
    await Promise.all([billing.flush(), gateway.flush()]);

    // The stream holds events, so a consumer created now would deliver them at once.
    const before = await streamCount();
    await appendTag(store, 'before the attempts');
    await waitUntil(async () => (await streamCount()) > before, 'the relay published it', { timeoutMs: 20_000 });

    const attacker = await connect({ servers: nats.url, user: reader.user, pass: reader.password });
    const push = (name: string, deliver: string, group?: string) =>
      JSON.stringify({
        stream_name: ASSET_EVENTS_STREAM,
        config: { durable_name: name, deliver_subject: deliver, deliver_group: group, ack_policy: 'none', deliver_policy: 'all' },
      });
    // Push consumers delivering into billing's subjects and the gateway's reply inbox, by every create subject.
    attacker.publish(`$JS.API.CONSUMER.CREATE.${ASSET_EVENTS_STREAM}.stolen1`, push('stolen1', 'billing.stolen', 'billing'), { reply: 'billing.reply' });
    attacker.publish(`$JS.API.CONSUMER.DURABLE.CREATE.${ASSET_EVENTS_STREAM}.stolen2`, push('stolen2', `${DEFAULT_GATEWAY_INBOX_PREFIX}.stolen`));
    attacker.publish(
      `$JS.API.CONSUMER.CREATE.${ASSET_EVENTS_STREAM}`,
      JSON.stringify({ stream_name: ASSET_EVENTS_STREAM, config: { deliver_subject: 'billing.ephemeral', ack_policy: 'none' } }),
    );
    // A pull whose reply subject is billing's: JetStream would deliver the events there.
    attacker.publish(`$JS.API.CONSUMER.MSG.NEXT.${ASSET_EVENTS_STREAM}.${READER}`, JSON.stringify({ batch: 10 }), { reply: 'billing.pulled' });
    await attacker.flush();

    // Meanwhile the reader's own path works: a new event reaches it.
    const own = await connect({ servers: nats.url, user: reader.user, pass: reader.password });
    const lines: string[] = [];
    const stop = new AbortController();
    const tailing = tailAssetEvents(own, READER, { kind: 'visitortag' }, (line) => lines.push(line), stop.signal);
    const fresh = await appendTag(store, 'after the attempts');
    await waitUntil(async () => lines.some((line) => line.includes(fresh)), 'the reader received the new event', { timeoutMs: 20_000 });
    stop.abort();
    await tailing;
    await Promise.all([billing.flush(), gateway.flush()]);

    await Promise.all([own.close(), attacker.close(), billing.close(), gateway.close()]);
    expect(received).toEqual([]);
  });

  it('refuses an unknown kind and the removed --from-start (exit 2), and a reader cannot publish into the stream', async () => {
    const refused = tail(['--kind', 'nosuchkind'], { PATH: process.env['PATH'], NATS_URL: nats.url });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(/--kind takes an asset kind/);
    const removed = tail(['--from-start'], { PATH: process.env['PATH'], NATS_URL: nats.url });
    expect(await removed.exited).toBe(2);
    expect(removed.stderr()).toMatch(/--from-start was removed/);

    const before = await streamCount();
    const writer = await connect({ servers: nats.url, user: reader.user, pass: reader.password });
    await expect(writer.jetstream().publish('assets.events.visitortag.VisitorTagCreated', new TextEncoder().encode('{}'), { timeout: 1000 })).rejects.toThrow();
    expect(await streamCount()).toBe(before);
    await writer.close();
  });
});
