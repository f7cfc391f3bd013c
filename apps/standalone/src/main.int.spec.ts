import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isAlive } from '@funnel/testing';

const root = resolve(__dirname, '..', '..', '..');

interface LogLine {
  pid?: number;
  level?: string;
  msg?: string;
  host?: string;
  port?: number;
  url?: string;
}

/** `npm start` as the README shows it (HOST unset), on a fresh DATA_DIR and a free port; its log lines as they come. */
function npmStart(
  dataDir: string,
  extraEnv: NodeJS.ProcessEnv = {},
): { npm: ChildProcess; lines: LogLine[]; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> } {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: '0', EDGE_PORT: '0', LOG_LEVEL: 'info', ...extraEnv };
  // The embedded stores, whatever this shell points the contract suites at; the default interface.
  for (const name of ['EVENTSTORE_URL', 'MONGO_URL', 'MONGO_DB', 'NATS_URL', 'CLICKHOUSE_URL', 'HOST', 'OUTBOUND_ALLOW_PRIVATE']) {
    if (!(name in extraEnv)) delete env[name];
  }
  const npm = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: LogLine[] = [];
  let buffered = '';
  npm.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const text of complete) {
      try {
        lines.push(JSON.parse(text) as LogLine);
      } catch {
        // npm's own lines
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => npm.once('exit', (code, signal) => done({ code, signal })));
  return { npm, lines, exited };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

describe('npm start, stopped with SIGTERM (as a process manager stops it)', () => {
  let dataDir: string;
  let appPid: number | undefined;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'funnel-npm-start-'));
  });
  afterEach(() => {
    // A service the signal did not reach would keep running after the test.
    if (appPid !== undefined && isAlive(appPid)) process.kill(appPid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('listens on loopback only by default, naming the address; passes the signal to the service, which shuts down gracefully, frees its port and exits 0', async () => {
    const { npm, lines, exited } = npmStart(dataDir, { OUTBOUND_ALLOW_PRIVATE: 'true' });
    let listening: LogLine | undefined;
    while (!(listening = lines.find((line) => line.msg?.startsWith('funnel-service standalone listening')))) {
      const early = await Promise.race([exited, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))]);
      if (early) throw new Error(`npm start ended before listening: ${JSON.stringify(early)}`);
    }
    appPid = listening.pid;
    const port = listening.port!;
    expect(listening).toMatchObject({
      host: '127.0.0.1',
      url: `http://127.0.0.1:${port}`,
      msg: `funnel-service standalone listening on http://127.0.0.1:${port}`,
    });
    expect(await accepts(port)).toBe(true);
    // The lifted SSRF rule is said at start, before the service listens.
    const warning = lines.findIndex((line) => line.level === 'warn' && line.msg?.startsWith('OUTBOUND_ALLOW_PRIVATE=true'));
    expect(warning).toBeGreaterThanOrEqual(0);
    expect(warning).toBeLessThan(lines.indexOf(listening));

    npm.kill('SIGTERM');

    expect(await exited).toEqual({ code: 0, signal: null });
    expect(lines.map((line) => line.msg)).toEqual(expect.arrayContaining(['shutting down', 'shutdown complete']));
    expect(isAlive(appPid!)).toBe(false);
    expect(await accepts(port)).toBe(false);
  });
});
