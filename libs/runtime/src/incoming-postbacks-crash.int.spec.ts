import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { aHit } from '@funnel/reporting-domain';
import { eventually, tempDir } from '@funnel/testing';
import { openHitSink } from './hits-import';
import { openHitStore } from './reporting-config';

/**
 * kill -9 of the standalone process with an incoming postback queued and not yet applied: answered
 * 200, so its job and its log row are durable; after the restart the worker applies it, the log row
 * ends `applied` and the hit has the conversion.
 */

const root = join(__dirname, '..', '..', '..');
const API_KEY = 'pb-crash-test-admin-key-0001';

interface Child {
  child: ChildProcess;
  edgePort: number;
  port: number;
  accountId: string;
  exited: Promise<NodeJS.Signals | null>;
}

/** The crash fixture (standalone on `dataDir`), once it printed its ports. */
async function startChild(dataDir: string, env: NodeJS.ProcessEnv): Promise<Child> {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(__dirname, 'fixtures', 'reporting-crash.fixture.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      EDGE_PORT: '0',
      EDGE_DEFAULT_DOMAIN: '127.0.0.1',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      CRASH_AFTER_COMMITS: '0',
      ACCOUNT_API_KEY: '',
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  const [edgePort, port, accountId] = await new Promise<[number, number, string]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /edge=(\d+) port=(\d+) account=(\w*)\n/.exec(out);
      if (match) resolve([Number(match[1]), Number(match[2]), match[3]]);
    });
    child.once('exit', () => reject(new Error(`fixture exited before listening: ${out}`)));
  });
  return { child, edgePort, port, accountId, exited };
}

const api = (port: number) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: (await response.json()) as any };
};

const window = () => ({ timeStart: new Date(Date.now() - 3600_000).toISOString(), timeEnd: new Date(Date.now() + 3600_000).toISOString() });

describe('incoming postbacks: kill -9 of the standalone process with a postback queued (standalone)', () => {
  it('applies the postback after the restart: the log row ends applied and the hit has the conversion', async () => {
    const dir = tempDir('pb-crash');
    let running: Child | undefined;
    try {
      // A process that does not apply jobs (REPORTING_WORKERS=0): the postback stays queued.
      running = await startChild(dir.path, { REPORTING_WORKERS: '0', ACCOUNT_API_KEY: API_KEY });
      const { accountId } = running;
      const hitId = generateAssetId();
      const answer = await fetch(`http://127.0.0.1:${running.edgePort}/a/${accountId}/pb/?hit=${hitId}&tx=T-crash&rev=2.5`);
      expect(answer.status).toBe(200);
      const call = api(running.port);
      const before = await call('POST', '/reporting/logs/incomingpostbacks/', { ...window(), hitIds: [hitId] });
      expect(before.status).toBe(200);
      expect(before.body.rows).toEqual([expect.objectContaining({ hitId, transactionId: 'T-crash', payout: '2.5', outcome: 'queued' })]);
      const jobId: string = before.body.rows[0].jobId;
      expect(jobId).toEqual(expect.any(String));
      // The job's record is written when a worker takes the job: until then the job route does not know it.
      expect((await call('GET', `/reporting/jobs/?jobId=${jobId}`)).status).toBe(404);

      running.child.kill('SIGKILL');
      expect(await running.exited).toBe('SIGKILL');
      // The hit goes in while no standalone runs (one process at a time opens DATA_DIR's warehouse).
      const sink = await openHitSink({ DATA_DIR: dir.path });
      await sink.write([aHit({ hitId, visitorId: generateAssetId(), accountId, idTrafficSource: 'organic' })]);
      await sink.close();

      running = await startChild(dir.path, {});
      const again = api(running.port);
      const applied = await eventually(async () => {
        const { body } = await again('POST', '/reporting/logs/incomingpostbacks/', { ...window(), hitIds: [hitId] });
        expect(body.rows).toEqual([expect.objectContaining({ jobId, outcome: 'applied' })]);
        return body;
      }, 30_000);
      expect(applied.rowsTotal).toBe(1);
      const job = await again('GET', `/reporting/jobs/?jobId=${jobId}`);
      expect(job.body).toMatchObject({ status: 'done', counts: { rows: 1, applied: 1 } });
      running.child.kill('SIGTERM');
      await running.exited;

      const store = await openHitStore({ DATA_DIR: dir.path });
      try {
        const [hit] = await store.getHits(accountId, [hitId]);
        expect(hit.conversions).toEqual([expect.objectContaining({ transactionId: 'T-crash', payout: '2.5' })]);
      } finally {
        await store.close();
      }
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      dir.remove();
    }
  }, 90_000);
});
