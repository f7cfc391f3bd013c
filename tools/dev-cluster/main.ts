/**
 * `npm run dev:cluster`: the distributed mode on one machine. Starts nats-server (from PATH, with
 * JetStream, on a free port) and each app as its own process, wired by environment: the gateway on
 * PORT (default 3000); the services on EventStoreDB / MongoDB when EVENTSTORE_URL / MONGO_URL are
 * set, else on the embedded adapters under DATA_DIR (default ./data/cluster). Ctrl-C stops them all.
 * Set NATS_URL to use a NATS server you run instead.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { freePort } from '@funnel/testing';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');
const children: { name: string; child: ChildProcess }[] = [];
let stopping = false;

function prefixLines(name: string, stream: NodeJS.ReadableStream, out: NodeJS.WritableStream): void {
  let buffered = '';
  stream.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) out.write(`[${name}] ${line}\n`);
  });
}

function launch(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  prefixLines(name, child.stdout!, process.stdout);
  prefixLines(name, child.stderr!, process.stderr);
  child.on('exit', (code, signal) => {
    if (stopping) return;
    process.stderr.write(`[dev-cluster] ${name} exited (${signal ?? code}); stopping the cluster\n`);
    void stopAll(1);
  });
  children.push({ name, child });
  return child;
}

async function stopAll(exitCode: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Gateway first, NATS last, so in-flight requests can still reach the services while they drain.
  for (const { child } of [...children].reverse()) child.kill('SIGTERM');
  const deadline = Date.now() + 10_000;
  while (children.some(({ child }) => child.exitCode === null && child.signalCode === null) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  process.exit(exitCode);
}

async function waitForNats(port: number): Promise<void> {
  const { connect } = await import('nats');
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const nc = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 500 });
      await nc.close();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  const dataDir = resolve(process.env.DATA_DIR ?? join(root, 'data', 'cluster'));
  mkdirSync(dataDir, { recursive: true });
  let natsUrl = process.env.NATS_URL;
  if (!natsUrl) {
    if (spawnSync('nats-server', ['--version']).error) {
      throw new Error('nats-server not found on PATH: install it with apt-get install nats-server (or set NATS_URL)');
    }
    const natsPort = await freePort();
    const storeDir = join(dataDir, 'nats');
    mkdirSync(storeDir, { recursive: true });
    launch('nats', 'nats-server', ['-a', '127.0.0.1', '-p', String(natsPort), '-js', '-sd', storeDir], process.env);
    await waitForNats(natsPort);
    natsUrl = `nats://127.0.0.1:${natsPort}`;
  }
  const common = { ...process.env, NATS_URL: natsUrl, DATA_DIR: dataDir };
  const node = process.execPath;
  const register = join(root, 'tools', 'register.js');
  const services = ['identity-service', 'assets-service', 'scripts-service'];
  for (const name of services) {
    const env: NodeJS.ProcessEnv = { ...common, OPS_PORT: String(await freePort()) };
    delete env.PORT;
    launch(name, node, ['-r', register, join('apps', name, 'src', 'main.ts')], env);
  }
  launch('gateway', node, ['-r', register, join('apps', 'gateway', 'src', 'main.ts')], { ...common, PORT: process.env.PORT ?? '3000' });
  process.stdout.write(`[dev-cluster] NATS ${natsUrl}; gateway on http://localhost:${process.env.PORT ?? '3000'}/v1; data in ${dataDir}; Ctrl-C stops all\n`);
}

main().catch((error: Error) => {
  process.stderr.write(`[dev-cluster] ${error.message}\n`);
  void stopAll(1);
});
