import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { eventually, freePort, tempDir } from '@funnel/testing';

/**
 * kill -9 of the standalone process while asset writes run concurrently (the event log's group
 * commit shares one transaction among them) loses no acknowledged write: every create and update
 * answered 200 before the kill is in the log after the restart, and of two creates of one id that
 * raced, exactly one was answered 200 (the other 409) and its record is the one stored.
 */

const root = join(__dirname, '..', '..', '..');
const API_KEY = 'writes-crash-admin-key-00001';

interface Running {
  child: ChildProcess;
  exited: Promise<NodeJS.Signals | null>;
}

/** The standalone app as `npm start` runs it, on DATA_DIR, with its API on `port`. */
async function startStandaloneProcess(dataDir: string, port: number): Promise<Running> {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(root, 'apps', 'standalone', 'src', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      EDGE_PORT: '0',
      LOG_LEVEL: 'error',
      BOOTSTRAP_ADMIN_EMAIL: 'writes-crash@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'writes crash test password',
      BOOTSTRAP_API_KEY: API_KEY,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the standalone process exited with ${child.exitCode}`);
    expect((await fetch(`http://127.0.0.1:${port}/health/ready`)).status).toBe(200);
  }, 60_000);
  return { child, exited };
}

async function call(port: number, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** A request the kill cut: no answer, so nothing was acknowledged. */
const cutByTheKill = (error: unknown) => /ECONNRESET|ECONNREFUSED|socket hang up|fetch failed/.test(String(error));

/**
 * `concurrency` loops until `stop()`, each: two creates of one new id at once (one must win, one
 * must lose with 409), then an update of the winner. Answers, per id created, the tag names it may
 * have: the acknowledged one, and while an update is unanswered that update's too (the kill may
 * come after its commit and before its answer).
 */
function writes(port: number, concurrency: number) {
  const acknowledged = new Map<string, string[]>();
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      const idTag = generateAssetId();
      try {
        const names = [`a-${idTag}`, `b-${idTag}`];
        const creates = await Promise.all(names.map((tagName) => call(port, 'POST', '/visitortag/save/', { idTag, tagName, color: 'blue' })));
        expect(creates.map((c) => c.status).sort()).toEqual([200, 409]);
        const created = names[creates.findIndex((c) => c.status === 200)];
        const updated = `c-${idTag}`;
        acknowledged.set(idTag, [created, updated]);
        const update = await call(port, 'PUT', '/visitortag/save/', { idTag, tagName: updated, color: 'red' });
        expect(update.status).toBe(200);
        acknowledged.set(idTag, [updated]);
      } catch (error) {
        if (stopped || cutByTheKill(error)) return;
        throw error;
      }
    }
  });
  return {
    acknowledged,
    done: Promise.all(loops),
    stop: () => {
      stopped = true;
    },
  };
}

describe('the standalone process killed with SIGKILL while asset writes run concurrently', () => {
  it('has every create and update it acknowledged after the restart, and only the winner of each race', async () => {
    const dir = tempDir('writes-crash');
    const port = await freePort();
    let running: Running | undefined;
    try {
      running = await startStandaloneProcess(dir.path, port);
      const load = writes(port, 16);
      await eventually(async () => expect(load.acknowledged.size).toBeGreaterThanOrEqual(300), 60_000, 10);
      running.child.kill('SIGKILL');
      expect(await running.exited).toBe('SIGKILL');
      load.stop();
      await load.done;
      const acknowledged = new Map(load.acknowledged);

      running = await startStandaloneProcess(dir.path, port);
      const ids = [...acknowledged.keys()];
      const stored = new Map<string, string>();
      for (let start = 0; start < ids.length; start += 100) {
        const page = await call(port, 'GET', `/visitortag/find/byIds/?idTags=${ids.slice(start, start + 100).join(',')}`);
        expect(page.status).toBe(200);
        for (const tag of page.body as { idTag: string; tagName: string }[]) stored.set(tag.idTag, tag.tagName);
      }
      const missing = ids.filter((id) => !stored.has(id));
      expect(missing).toEqual([]);
      const wrong = ids
        .filter((id) => !acknowledged.get(id)!.includes(stored.get(id)!))
        .map((id) => ({ id, acknowledged: acknowledged.get(id), stored: stored.get(id) }));
      expect(wrong).toEqual([]);
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      dir.remove();
    }
  }, 180_000);
});
