/**
 * `npm run dev:cluster`: the distributed mode on one machine. Starts nats-server (from PATH, with
 * JetStream, on a free port, secured as in production: each app has its own NATS user with only
 * the permissions it needs, fresh passwords on every start) and each app as its own process, wired
 * by environment: the gateway on PORT (default 3000), the tracking edge's visitor links on EDGE_PORT
 * (default 3001, default domain localhost: http://localhost:3001/a/<accountId>/fts/<token>); the services on EventStoreDB / MongoDB when
 * EVENTSTORE_URL / MONGO_URL are set, else on the embedded adapters under DATA_DIR (default
 * ./data/cluster), their ops ports (health, metrics) on 127.0.0.1 only. A process that crashes is
 * started again after a backoff (0.5 s doubling to 10 s, back to 0.5 s once it stayed up a
 * minute); Ctrl-C stops them all: the gateway and the services first, NATS once they have exited.
 * Set NATS_URL to use a NATS server you run instead (with your own NATS_USER / NATS_PASSWORD or
 * NATS_CREDS_FILE for every app, if it requires them).
 */
// @funnel/platform loads @funnel/contracts, whose DTO decorators need the metadata API first.
import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { connect } from 'nats';
import {
  createNatsUsers,
  currentNatsUser,
  FUNNEL_NATS_LAYOUT,
  jetStreamReaderPermissions,
  natsAccessOptions,
  natsAuthorizationConfig,
  natsInboxPrefixOf,
  natsUserEnv,
  type NatsUsers,
  newNatsPassword,
} from '@funnel/platform';
import { freePort } from '@funnel/testing';
import { Supervisor } from './supervisor';

const root = resolve(__dirname, '..', '..');
const log = (line: string) => process.stderr.write(`[dev-cluster] ${line}\n`);

function prefixLines(name: string, stream: NodeJS.ReadableStream | null, out: NodeJS.WritableStream): void {
  let buffered = '';
  stream?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

const supervisor = new Supervisor({
  started(name, child, attempt) {
    prefixLines(name, child.stdout, process.stdout);
    prefixLines(name, child.stderr, process.stderr);
    if (attempt > 1) log(`${name} started again (attempt ${attempt})`);
  },
  crashed(name, exit, restartInMs) {
    log(`${name} exited (${exit}); restarting in ${restartInMs} ms`);
  },
});

let stopping = false;
async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Gateway first, then the services, NATS once they have exited: in-flight requests still reach the
  // services while they drain, and no service sees NATS go away.
  await supervisor.stop();
  process.exit(exitCode);
}

/** The asset events reader the dev cluster's NATS server knows (its durable consumer has the same name). */
const EVENTS_READER = 'events-reader';

async function waitForNats(url: string, users: NatsUsers): Promise<void> {
  const { user, password } = currentNatsUser(users, FUNNEL_NATS_LAYOUT.gateway);
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const nc = await connect({ servers: url, timeout: 500, reconnect: false, ...natsAccessOptions({ user, password }) });
      await nc.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts a secured nats-server under `dataDir`; resolves to its URL and the apps' users. */
async function startNats(dataDir: string): Promise<{ url: string; users: NatsUsers }> {
  if (spawnSync('nats-server', ['--version']).error) {
    throw new Error('nats-server not found on PATH: install it with apt-get install nats-server (or set NATS_URL)');
  }
  const natsDir = join(dataDir, 'nats');
  mkdirSync(join(natsDir, 'store'), { recursive: true, mode: 0o700 });
  const users = createNatsUsers(FUNNEL_NATS_LAYOUT);
  // A reader of the asset events, for `npm run cli -- events:tail` (see README "Asset events"); assets-service
  // creates its durable consumer (ASSET_EVENTS_READERS below).
  const reader = { user: EVENTS_READER, password: newNatsPassword(), permissions: jetStreamReaderPermissions(EVENTS_READER) };
  const configFile = join(natsDir, 'nats-auth.conf');
  writeFileSync(configFile, natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, users, [reader]), { mode: 0o600 });
  const port = await freePort();
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', join(natsDir, 'store'), '-c', configFile];
  supervisor.start({ name: 'nats', command: 'nats-server', args, env: process.env, cwd: root, stopLast: true });
  const url = `nats://127.0.0.1:${port}`;
  await waitForNats(url, users);
  const readerEnv = join(natsDir, 'events-reader.env');
  writeFileSync(readerEnv, `NATS_URL=${url}\nNATS_USER=${reader.user}\nNATS_PASSWORD=${reader.password}\n`, { mode: 0o600 });
  log(`asset events: env $(cat ${readerEnv}) npm run -s cli -- events:tail`);
  // The tracking edge's user, for `npm run cli -- hits:import` over NATS (see README "Reporting").
  for (const { app } of FUNNEL_NATS_LAYOUT.clients ?? []) {
    const env = { NATS_URL: url, ...natsUserEnv(users, app), NATS_INBOX_PREFIX: natsInboxPrefixOf(FUNNEL_NATS_LAYOUT, app)! };
    const file = join(natsDir, `nats-${app}.env`);
    writeFileSync(
      file,
      Object.entries(env)
        .map(([key, value]) => `${key}=${value}\n`)
        .join(''),
      { mode: 0o600 },
    );
    log(`${app}'s NATS user: ${file}`);
  }
  return { url, users };
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  // The apps run in process groups of their own (out of reach of the terminal's Ctrl-C): none outlives dev-cluster.
  process.on('exit', () => supervisor.kill());
  const dataDir = resolve(process.env.DATA_DIR ?? join(root, 'data', 'cluster'));
  mkdirSync(dataDir, { recursive: true });
  const own = process.env.NATS_URL ? undefined : await startNats(dataDir);
  const natsUrl = process.env.NATS_URL ?? own!.url;
  const natsEnv = (app: string) => (own ? natsUserEnv(own.users, app) : {});
  const common = { ...process.env, NATS_URL: natsUrl, DATA_DIR: dataDir, ...(own ? { ASSET_EVENTS_READERS: EVENTS_READER } : {}) };
  const node = process.execPath;
  const register = join(root, 'tools', 'register.js');
  const opsPorts: string[] = [];
  for (const { app } of FUNNEL_NATS_LAYOUT.services) {
    const opsPort = String(await freePort());
    const env: NodeJS.ProcessEnv = { ...common, ...natsEnv(app), OPS_PORT: opsPort, OPS_HOST: '127.0.0.1' };
    delete env.PORT;
    supervisor.start({ name: app, command: node, args: ['-r', register, join('apps', app, 'src', 'main.ts')], env, cwd: root });
    opsPorts.push(`${app} http://127.0.0.1:${opsPort}/metrics`);
  }
  const gateway = FUNNEL_NATS_LAYOUT.gateway;
  const port = process.env.PORT ?? '3000';
  supervisor.start({
    name: gateway,
    command: node,
    args: ['-r', register, join('apps', gateway, 'src', 'main.ts')],
    env: { ...common, ...natsEnv(gateway), PORT: port },
    cwd: root,
  });
  // The tracking edge: visitor links on EDGE_PORT (default 3001), e.g. http://localhost:3001/a/<accountId>/fts/<token>
  // with EDGE_DEFAULT_DOMAIN=localhost.
  const edgePort = process.env.EDGE_PORT ?? '3001';
  supervisor.start({
    name: 'tracking-edge',
    command: node,
    args: ['-r', register, join('apps', 'tracking-edge', 'src', 'main.ts')],
    env: { EDGE_DEFAULT_DOMAIN: 'localhost', ...common, ...natsEnv('tracking-edge'), PORT: edgePort },
    cwd: root,
  });
  log(
    `NATS ${natsUrl}${own ? ' (secured, a user per app)' : ''}; gateway on http://localhost:${port}/v1; tracking edge on http://localhost:${edgePort}; data in ${dataDir}; Ctrl-C stops all`,
  );
  log(`ops: ${opsPorts.join(', ')}`);
}

main().catch((error: Error) => {
  log(error.message);
  void stopAll(1);
});
