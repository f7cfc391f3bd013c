import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { RunningApp, startStandalone } from '@funnel/runtime';

const root = resolve(__dirname, '..', '..');

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `npm run cli -- ...` as the README shows it, minus npm: node with the TypeScript register hook. */
function cli(args: string[], env: NodeJS.ProcessEnv): Promise<CliRun> {
  return new Promise((done) => {
    execFile(process.execPath, ['-r', './tools/register.js', 'tools/cli/main.ts', ...args], { cwd: root, env, timeout: 30_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

const lastLine = (text: string) => text.trim().split('\n').pop() ?? '';

describe('npm run cli -- users:create, next to a running standalone service on the same DATA_DIR', () => {
  let dataDir: string;
  let running: RunningApp;
  let childEnv: NodeJS.ProcessEnv;
  let baseUrl: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'funnel-cli-'));
    running = await startStandalone({ DATA_DIR: dataDir, PORT: '0', EDGE_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    baseUrl = `http://127.0.0.1:${running.port}/v1`;
    // The embedded stores, whatever this shell points the contract suites at.
    childEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
    for (const name of ['EVENTSTORE_URL', 'MONGO_URL', 'MONGO_DB']) delete childEnv[name];
  });
  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a user whose printed key authenticates at once, and refuses the same e-mail again', async () => {
    const created = await cli(['users:create', '--email', 'ops@example.com', '--password', 'a long password', '--name', 'Ops', '--api-key'], childEnv);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const printed = JSON.parse(lastLine(created.stdout));
    expect(Object.keys(printed).sort()).toEqual(['accountId', 'apiKey', 'userId']);
    expect(printed.accountId).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(printed.userId).toMatch(/^[0-9A-Za-z]{12}$/);

    // The service sees the other process's appends by polling the SQLite log: allow ~1 s.
    let status = 0;
    let body: unknown;
    const deadline = Date.now() + 1000;
    do {
      const res = await fetch(`${baseUrl}/visitortag/list/`, { headers: { 'x-api-key': printed.apiKey } });
      status = res.status;
      body = await res.json();
      if (status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    expect(status).toBe(200);
    expect(body).toEqual([]);

    const again = await cli(['users:create', '--email', 'OPS@example.com', '--password', 'another password'], childEnv);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr.trim().split('\n')).toEqual([expect.stringMatching(/exists/)]);
  });

  it('prints no key without --api-key, and the new user can log in at once', async () => {
    const created = await cli(['users:create', '--email', 'nokey@example.com', '--password', 'a long password'], childEnv);
    expect(created.code).toBe(0);
    const printed = JSON.parse(lastLine(created.stdout));
    expect(Object.keys(printed).sort()).toEqual(['accountId', 'userId']);
    // Login reads the user's streams, not a projection: no wait for the other process's appends.
    const login = await fetch(`${baseUrl}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'nokey@example.com', password: 'a long password' }),
    });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { user: unknown; tokens: { access_token: string } };
    expect(session.user).toMatchObject({
      user_id: printed.userId,
      email: 'nokey@example.com',
      permissions: expect.arrayContaining(['keys:manage', 'settings:write']),
    });
    const listed = await fetch(`${baseUrl}/visitortag/list/`, { headers: { authorization: `Bearer ${session.tokens.access_token}` } });
    expect(listed.status).toBe(200);
  });

  it('exits with 2 and the usage on stderr for bad arguments', async () => {
    const bad = await cli(['users:create', '--email', 'x@example.com'], childEnv);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/--password is required[\s\S]*usage: npm run -s cli -- users:create/);
  });
});
