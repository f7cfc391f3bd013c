import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, constants, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { cleanUpLater } from './cleanup';
import { freePort, greets, waitUntil } from './net';
import { tempDir } from './temp-dir';

export interface NatsServerOptions {
  /** JetStream on (the default), storing under a temp dir that outlives restarts. */
  jetstream?: boolean;
  /** A fixed port; a free one by default. */
  port?: number;
  /** How long to wait for the server to accept connections. */
  startTimeoutMs?: number;
  /**
   * nats-server configuration text, written to a private temp file: e.g. the users and permissions
   * of natsAuthorizationConfig (@funnel/platform), to run secured as deployed.
   */
  config?: string;
}

export interface RunningNatsServer {
  url: string;
  port: number;
  /** Stops the process (idempotent). The store survives, so `restart()` can bring it back. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store (stopping it first if running): an outage and recovery. */
  restart(): Promise<void>;
}

const HOST = '127.0.0.1';
const COMMAND = 'nats-server';
const STOP_GRACE_MS = 5000;
const STDERR_TAIL_CHARS = 2000;

/** Spawns `nats-server` from PATH on a free port and waits until it accepts connections. */
export async function startNatsServer(options: NatsServerOptions = {}): Promise<RunningNatsServer> {
  if (!isOnPath(COMMAND)) {
    throw new Error(`${COMMAND} not found on PATH: install it with apt-get install nats-server`);
  }
  const port = options.port ?? (await freePort(HOST));
  const store = options.jetstream === false ? undefined : tempDir('nats-store');
  const args = ['-a', HOST, '-p', String(port), ...(store ? ['-js', '-sd', store.path] : [])];
  const startTimeoutMs = options.startTimeoutMs ?? 10_000;
  let child: ChildProcess | undefined;
  // A server the test did not stop is killed after its test file, before its store is removed.
  cleanUpLater(async () => {
    const serverProcess = child;
    child = undefined;
    if (!serverProcess || serverProcess.exitCode !== null || serverProcess.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => serverProcess.once('exit', () => resolve()));
    serverProcess.kill('SIGKILL');
    await exited;
  });

  const start = async () => {
    // The configuration file is needed only while the server starts: removed once it runs, so a
    // test process killed later leaves no copy of it behind.
    const configDir = options.config === undefined ? undefined : tempDir('nats-config');
    const configArgs = configDir ? ['-c', join(configDir.path, 'nats.conf')] : [];
    if (configDir) writeFileSync(configArgs[1], options.config!, { mode: 0o600 });
    const serverProcess = spawn(COMMAND, [...args, ...configArgs], { stdio: ['ignore', 'ignore', 'pipe'] });
    child = serverProcess;
    let stderr = '';
    serverProcess.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL_CHARS)));
    let exited = false;
    serverProcess.once('exit', () => {
      exited = true;
    });
    serverProcess.once('error', (error) => {
      exited = true;
      stderr += String(error);
    });
    try {
      // NATS greets every connection with its INFO line: that, not a bare TCP accept, means ready.
      await waitUntil(() => greets(port, HOST, 'INFO '), `${COMMAND} serves ${HOST}:${port}`, {
        timeoutMs: startTimeoutMs,
        isAborted: () => exited,
      });
    } catch (error) {
      serverProcess.kill('SIGKILL');
      throw new Error(`${COMMAND} did not start on ${HOST}:${port}: ${(error as Error).message}\n${stderr}`);
    } finally {
      configDir?.remove();
    }
  };

  const stop = async () => {
    const serverProcess = child;
    child = undefined;
    if (!serverProcess || serverProcess.exitCode !== null || serverProcess.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => serverProcess.once('exit', () => resolve()));
    serverProcess.kill('SIGTERM');
    const killer = setTimeout(() => serverProcess.kill('SIGKILL'), STOP_GRACE_MS);
    await exited;
    clearTimeout(killer);
  };

  await start();
  return {
    url: `nats://${HOST}:${port}`,
    port,
    stop,
    restart: async () => {
      await stop();
      await start();
    },
  };
}

function isOnPath(command: string): boolean {
  return (process.env['PATH'] ?? '')
    .split(delimiter)
    .filter((dir) => dir.length > 0)
    .some((dir) => {
      try {
        accessSync(join(dir, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}
