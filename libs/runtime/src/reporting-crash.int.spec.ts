import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { NatsServiceClient, createLogger } from '@funnel/platform';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { type RunningNatsServer, eventually, startNatsServer, tempDir } from '@funnel/testing';
import { openHitSink } from './hits-import';
import { openHitStore } from './reporting-config';
import { startAssetsService, startIdentityService, startReportingService } from './services';
import type { RunningApp } from './standalone';

const root = join(__dirname, '..', '..', '..');
const API_KEY = 'crash-test-admin-key-000001';

const hitOf = (accountId: string, hitId: string): Hit => aHit({ hitId, visitorId: generateAssetId(), accountId, idTrafficSource: 'organic' });

/** Starts the fixture (standalone on `dataDir`) and resolves with its HTTP port and process. */
async function startChild(
  dataDir: string,
  crashAfterCommits: number,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<{ child: ChildProcess; port: number; accountId: string; exited: Promise<NodeJS.Signals | null> }> {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(__dirname, 'fixtures', 'reporting-crash.fixture.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: '0',
      EDGE_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'error',
      CRASH_AFTER_COMMITS: String(crashAfterCommits),
      ACCOUNT_API_KEY: '',
      OPS_PORT: '0',
      OPS_HOST: '127.0.0.1',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  // A child that takes a queued job while it starts may die before it prints anything: its exit is the answer.
  if (extraEnv.EXPECT_CRASH) return { child, port: 0, accountId: '', exited };
  const [port, accountId] = await new Promise<[number, string]>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /port=(\d+) account=(\w*)\n/.exec(out);
      if (match) resolve([Number(match[1]), match[2]]);
    });
    child.once('exit', () => reject(new Error(`fixture exited before listening: ${out}`)));
  });
  return { child, port, accountId, exited };
}

const api = (port: number) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as any };
};

describe('reporting: a crash of the service mid-job (standalone, a child process killed between two batches)', () => {
  it('completes the job after the restart, and applies no row twice', async () => {
    const dir = tempDir('reporting-crash');
    let running: Awaited<ReturnType<typeof startChild>> | undefined;
    try {
      // Accepted by a process that does not apply jobs (REPORTING_WORKERS=0), so the answer is out before any worker starts.
      running = await startChild(dir.path, 0, { REPORTING_WORKERS: '0', ACCOUNT_API_KEY: API_KEY });
      const call = api(running.port);
      const accountId = running.accountId;
      const hitIds = Array.from({ length: 10 }, () => generateAssetId());
      const accepted = await call('PUT', '/reporting/update/customevents/', {
        hits: hitIds.map((hitId) => ({ hitId, eventNumber: 1, count: 1, time: '2026-01-10T12:00:00Z' })),
      });
      expect(accepted.status).toBe(200);
      const jobId = accepted.body.jobIds[0];
      running.child.kill('SIGTERM');
      await running.exited;
      // The hits go in while no standalone runs: one process at a time opens DATA_DIR's warehouse.
      const sink = await openHitSink({ DATA_DIR: dir.path });
      expect(await sink.write(hitIds.map((id) => hitOf(accountId, id)))).toEqual({ inserted: 10, ignored: 0, invalid: [], invalidCount: 0 });
      await sink.close();

      // 10 rows in batches of 2: this process dies right after the second batch (4 rows) was committed.
      running = await startChild(dir.path, 2, { EXPECT_CRASH: '1' });
      expect(await running.exited).toBe('SIGKILL');

      running = await startChild(dir.path, 0);
      const again = api(running.port);
      const job = await eventually(async () => {
        const { body } = await again('GET', `/reporting/jobs/?jobId=${jobId}`);
        expect(body.status).toBe('done');
        return body;
      }, 30_000);
      expect(job.counts).toEqual({ rows: 10, applied: 10, noop: 0, notFound: 0, failed: 0 });
      // Every hit counted its event exactly once: the 4 rows applied before the crash were not applied again.
      const reset = await again('POST', '/reporting/update/reset/', { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2026-02-01T00:00:00Z' });
      expect(reset.body).toEqual({ value: 10 });
      // Read once the standalone is stopped (it holds the warehouse file while it runs).
      running.child.kill('SIGTERM');
      await running.exited;
      const counts = await customEventCounts(dir.path, accountId, hitIds);
      expect(counts).toEqual(hitIds.map(() => ({ 1: 1 })));
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      dir.remove();
    }
  }, 90_000);
});

async function customEventCounts(dataDir: string, accountId: string, hitIds: string[]): Promise<Record<string, number>[]> {
  const store = await openHitStore({ DATA_DIR: dataDir });
  try {
    const hits = await store.getHits(accountId, hitIds);
    return hitIds.map((id) => hits.find((h) => h.hitId === id)?.customEvents ?? {});
  } finally {
    await store.close();
  }
}

describe('reporting: a crash of the service mid-job (distributed: the reporting service process killed between two batches)', () => {
  it('completes the job on JetStream after the restart, and applies no row twice', async () => {
    const nats = await startNatsServer();
    const dir = tempDir('reporting-crash-js');
    const client = new NatsServiceClient(nats.url, { timeoutMs: 5000, logger: createLogger('test', 'fatal') });
    let running: Awaited<ReturnType<typeof startChild>> | undefined;
    try {
      // Accepted by an instance that does not consume, so the answer is out before any worker starts.
      const accepting = await startReportingService(
        { NATS_URL: nats.url, DATA_DIR: dir.path, LOG_LEVEL: 'fatal', OPS_PORT: '0', OPS_HOST: '127.0.0.1' },
        { reporting: { acceptOnly: true } },
      );
      const accountId = generateAssetId();
      const context = { accountId, userId: 'test', permissions: ['reporting:write'], correlationId: 'test' };
      const hitIds = Array.from({ length: 10 }, () => generateAssetId());
      await client.request(ReportingSubjects.hitsIngest, { context, body: { hits: hitIds.map((id) => hitOf(accountId, id)) } });
      const { jobIds } = await client.request<{ jobIds: string[] }>(ReportingSubjects.customEvents, {
        context,
        body: { body: { hits: hitIds.map((hitId) => ({ hitId, eventNumber: 2, time: '2026-01-10T12:00:00Z' })) } },
      });
      await accepting.close();
      // This one takes the job and dies right after its second batch of 2 rows reached the hit store.
      running = await startChild(dir.path, 2, { NATS_URL: nats.url, EXPECT_CRASH: '1' });
      expect(await running.exited).toBe('SIGKILL');

      running = await startChild(dir.path, 0, { NATS_URL: nats.url });
      const job = await eventually(async () => {
        const found = await client.request<{ status: string; counts: unknown }>(ReportingSubjects.jobsGet, { context, body: { query: { jobId: jobIds[0] } } });
        expect(found.status).toBe('done');
        return found;
      }, 30_000);
      expect(job.counts).toEqual({ rows: 10, applied: 10, noop: 0, notFound: 0, failed: 0 });
      const { hits } = await client.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, { context, body: { hitIds } });
      expect(hits.map((h) => h.customEvents)).toEqual(hitIds.map(() => ({ 2: 1 })));
    } finally {
      await client.close();
      running?.child.kill('SIGKILL');
      await running?.exited;
      await nats.stop();
      dir.remove();
    }
  }, 90_000);
});

describe('reporting: a restart of nats-server with accepted jobs queued (distributed)', () => {
  let nats: RunningNatsServer;
  const dir = tempDir('reporting-nats-restart');
  const apps: RunningApp[] = [];

  afterAll(async () => {
    for (const app of apps.reverse()) await app.close().catch(() => undefined);
    await nats?.stop();
    dir.remove();
  });

  it('loses none of them: every job reaches done once the service consumes again', async () => {
    nats = await startNatsServer();
    const env = { NATS_URL: nats.url, DATA_DIR: dir.path, LOG_LEVEL: 'fatal', OPS_PORT: '0', OPS_HOST: '127.0.0.1' };
    apps.push(await startIdentityService(env), await startAssetsService(env));
    // Accepts but does not consume: the jobs stay on the REPORTING_UPDATES stream.
    const accepting = await startReportingService(env, { reporting: { acceptOnly: true } });
    const client = new NatsServiceClient(nats.url, { timeoutMs: 5000, logger: createLogger('test', 'fatal') });
    const accountId = generateAssetId();
    const context = { accountId, userId: 'test', permissions: ['reporting:write'], correlationId: 'test' };
    const hitIds = Array.from({ length: 20 }, () => generateAssetId());
    try {
      await client.request(ReportingSubjects.hitsIngest, { context, body: { hits: hitIds.map((id) => hitOf(accountId, id)) } });
      const jobIds: string[] = [];
      for (const hitId of hitIds) {
        const reply = await client.request<{ jobIds: string[] }>(ReportingSubjects.customEvents, {
          context,
          body: { body: { hits: [{ hitId, eventNumber: 3, time: '2026-01-10T12:00:00Z' }] } },
        });
        jobIds.push(reply.jobIds[0]);
      }
      await accepting.close();
      await nats.restart();

      apps.push(await startReportingService(env));
      for (const jobId of jobIds) {
        await eventually(async () => {
          const job = await client.request<{ status: string; counts: { applied: number } }>(ReportingSubjects.jobsGet, { context, body: { query: { jobId } } });
          expect(job).toMatchObject({ status: 'done', counts: { applied: 1 } });
        }, 30_000);
      }
      const { hits } = await client.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, { context, body: { hitIds } });
      expect(hits.map((h) => h.customEvents)).toEqual(hitIds.map(() => ({ 3: 1 })));
    } finally {
      await client.close();
    }
  }, 120_000);
});

describe('webhooks: a crash of the process sending a webhook (standalone, killed while the receiver holds the request)', () => {
  it('sends it again after the restart under the same webhook-id, and delivers it once', async () => {
    const dir = tempDir('webhook-crash');
    // The receiver holds the first request it gets (the sender waits for the answer), then answers 200.
    const requests: { id: string; answered: number | null }[] = [];
    let held: (() => void) | undefined;
    const receiver = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const entry = { id: String(req.headers['webhook-id']), answered: null as number | null };
        requests.push(entry);
        if (requests.length === 1) {
          held = () => res.destroy();
          return;
        }
        entry.answered = 200;
        res.writeHead(200).end('ok');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const env = { OUTBOUND_ALLOW_PRIVATE: 'true' };
    let running: Awaited<ReturnType<typeof startChild>> | undefined;
    try {
      running = await startChild(dir.path, 0, { ...env, REPORTING_WORKERS: '0', ACCOUNT_API_KEY: API_KEY });
      const accountId = running.accountId;
      const idWebhookConfig = generateAssetId();
      const saved = await api(running.port)('POST', '/webhookconfig/save/', {
        idWebhookConfig,
        webhookConfigName: 'Every conversion',
        url,
        triggers: ['conversion_triggered'],
        allFunnels: true,
      });
      expect(saved.status).toBe(200);
      running.child.kill('SIGTERM');
      await running.exited;
      const hitId = generateAssetId();
      const sink = await openHitSink({ DATA_DIR: dir.path });
      await sink.write([hitOf(accountId, hitId)]);
      await sink.close();

      running = await startChild(dir.path, 0, env);
      const update = await api(running.port)('PUT', '/reporting/update/conversions/', { hits: [{ hitId, payout: '4', transactionId: 'T-1' }] });
      expect(update.status).toBe(200);
      await eventually(async () => expect(requests).toHaveLength(1), 30_000);
      // Killed while the delivery waits for its answer: nothing logged, the job not acknowledged.
      running.child.kill('SIGKILL');
      expect(await running.exited).toBe('SIGKILL');
      held!();

      running = await startChild(dir.path, 0, env);
      const call = api(running.port);
      await eventually(async () => expect(requests).toHaveLength(2), 30_000);
      const window = { timeStart: new Date(Date.now() - 3600_000).toISOString(), timeEnd: new Date(Date.now() + 3600_000).toISOString() };
      const log = await eventually(async () => {
        const { body } = await call('POST', '/reporting/logs/webhooks', window);
        expect(body.rowsTotal).toBe(1);
        return body;
      }, 10_000);
      // Nothing more comes: delivered, it is never sent again.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(requests.map((r) => r.id)).toEqual([`${update.body.jobIds[0]}:0.${idWebhookConfig}`, `${update.body.jobIds[0]}:0.${idWebhookConfig}`]);
      expect(requests.filter((r) => r.answered === 200)).toHaveLength(1);
      expect(log.rows).toEqual([expect.objectContaining({ deliveryId: requests[0].id, outcome: 'delivered', httpStatus: 200 })]);
      expect(log.summary).toEqual([expect.objectContaining({ idWebhookConfig, deliveries: 1, successes: 1, attempts: 1 })]);
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      receiver.closeAllConnections();
      await new Promise((resolve) => receiver.close(resolve));
      dir.remove();
    }
  }, 120_000);
});
