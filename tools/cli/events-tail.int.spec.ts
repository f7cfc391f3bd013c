import { type ChildProcess, spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_STREAM, ASSET_KINDS, generateAssetId } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { AssetRegistry } from '@funnel/assets-domain';
import {
  DEFAULT_EVENTS_READER_INBOX_PREFIX,
  FUNNEL_NATS_LAYOUT,
  createNatsUsers,
  jetStreamReaderPermissions,
  natsAuthorizationConfig,
  natsUserEnv,
  newNatsPassword,
} from '@funnel/platform';
import { type RunningApp, startAssetsService } from '@funnel/runtime';
import { type RunningNatsServer, startNatsServer, tempDir, waitUntil } from '@funnel/testing';

const root = resolve(__dirname, '..', '..');
const registry = new AssetRegistry(ASSET_KINDS);
const ACCOUNT = 'ACCOUNT00001';

/** `npm run cli -- events:tail ...` as a child process, its stdout split in lines as they come. */
function tail(args: string[], env: NodeJS.ProcessEnv): { child: ChildProcess; lines: string[]; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['-r', './tools/register.js', 'tools/cli/main.ts', 'events:tail', ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop()!;
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  return { child, lines, stderr: () => stderr, exited };
}

async function appendTag(store: SqliteEventStore, name: string): Promise<string> {
  const idTag = generateAssetId();
  await store.append(registry.streamName('visitortag', ACCOUNT, idTag), [
    { type: 'VisitorTagCreated', data: { record: { idTag, tagName: name, status: 'active', idCategory: '' } }, metadata: { accountId: ACCOUNT } },
  ]);
  return idTag;
}

describe('asset events on a secured NATS: assets-service relays as its own user, a reader tails (npm run cli -- events:tail)', () => {
  const dir = tempDir('events-tail');
  const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
  const reader = { user: 'events-reader', password: newNatsPassword(), permissions: jetStreamReaderPermissions() };
  let nats: RunningNatsServer;
  let store: SqliteEventStore;
  let assetsService: RunningApp;
  let readerConnection: NatsConnection;
  const streamCount = async () =>
    (await (await readerConnection.jetstreamManager()).streams.info(ASSET_EVENTS_STREAM).catch(() => undefined))?.state.messages ?? 0;

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true, config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users, [reader]) });
    // The assets service as deployed, with its own NATS user and nothing more; the test appends to its log from outside.
    assetsService = await startAssetsService({
      ...natsUserEnv(users, 'assets-service'),
      NATS_URL: nats.url,
      DATA_DIR: dir.path,
      LOG_LEVEL: 'fatal',
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
    });
    store = new SqliteEventStore({ filename: join(dir.path, 'events.sqlite') });
    readerConnection = await connect({ servers: nats.url, user: reader.user, pass: reader.password, inboxPrefix: DEFAULT_EVENTS_READER_INBOX_PREFIX });
  });

  afterAll(async () => {
    await readerConnection.close();
    await assetsService.close();
    await store.close();
    await nats.stop();
    dir.remove();
  });

  it('prints the kind’s events from the start, then each new one as it comes, one JSON line each, and stops on Ctrl-C', async () => {
    const first = await appendTag(store, 'before the tail');
    await waitUntil(async () => (await streamCount()) === 1, 'the relay published it', { timeoutMs: 20_000 });
    const env = { PATH: process.env['PATH'], NATS_URL: nats.url, NATS_USER: reader.user, NATS_PASSWORD: reader.password };
    const running = tail(['--kind', 'visitortag', '--from-start'], env);
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
  });

  it('without --from-start prints only what comes after it started', async () => {
    await appendTag(store, 'old news');
    const env = { PATH: process.env['PATH'], NATS_URL: nats.url, NATS_USER: reader.user, NATS_PASSWORD: reader.password };
    const running = tail([], env);
    // The tail is up once the relay's next event reaches it: keep adding until one does.
    const added: string[] = [];
    await waitUntil(
      async () => {
        added.push(await appendTag(store, 'new'));
        return running.lines.length >= 1;
      },
      'the tail printed a new event',
      { timeoutMs: 30_000, intervalMs: 300 },
    );
    const printed = running.lines.map((line) => (JSON.parse(line) as { assetId: string }).assetId);
    expect(printed.every((assetId) => added.includes(assetId))).toBe(true);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
  });

  it('refuses an unknown kind (exit 2), and a reader cannot publish into the stream', async () => {
    const refused = tail(['--kind', 'nosuchkind'], { PATH: process.env['PATH'], NATS_URL: nats.url });
    expect(await refused.exited).toBe(2);
    expect(refused.stderr()).toMatch(/--kind takes an asset kind/);

    const before = await streamCount();
    await expect(
      readerConnection.jetstream().publish('assets.events.visitortag.VisitorTagCreated', new TextEncoder().encode('{}'), { timeout: 1000 }),
    ).rejects.toThrow();
    expect(await streamCount()).toBe(before);
  });
});
