import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { eventually, freePort, tempDir } from '@funnel/testing';
import { paramsOf, visit } from './e2e/edge-visitor';
import { distributedDeployment } from './e2e/harness';

/**
 * kill -9 of the tracking edge while visitors are being redirected loses no acknowledged hit: every
 * redirect answered before the kill has its hit in the warehouse after the restart, and no hit is
 * stored twice. Standalone: the whole standalone process (API, edge and warehouse) is killed;
 * distributed: the tracking edge's own process, while the other services run on.
 */

const root = join(__dirname, '..', '..', '..');
const API_KEY = 'edge-crash-admin-key-000001';
const ADMIN = { email: 'crash@example.com', password: 'crash test password' };
const DOMAIN = 'track.crash.example';
const HOUR = 3_600_000;

interface Running {
  child: ChildProcess;
  exited: Promise<NodeJS.Signals | null>;
}

/** The standalone app as `npm start` runs it, on DATA_DIR, with its API on `port` and the edge on `edgePort`. */
async function startStandaloneProcess(dataDir: string, port: number, edgePort: number): Promise<Running> {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(root, 'apps', 'standalone', 'src', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      EDGE_PORT: String(edgePort),
      EDGE_DEFAULT_DOMAIN: DOMAIN,
      LOG_LEVEL: 'error',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      BOOTSTRAP_API_KEY: API_KEY,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the standalone process exited with ${child.exitCode}`);
    const health = await fetch(`http://127.0.0.1:${port}/health/ready`);
    expect(health.status).toBe(200);
    // The visitor routes listen on their own port, which may open after the API's.
    expect((await fetch(`http://127.0.0.1:${edgePort}/health/ready`)).status).toBe(200);
  }, 60_000);
  return { child, exited };
}

const api = (port: number) => async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1${path}`, {
    method,
    headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
};

/** The account of the bootstrap admin: its login's access token names it. */
async function accountOf(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: ADMIN.email, password: ADMIN.password }),
  });
  const { tokens } = (await response.json()) as { tokens: { access_token: string } };
  return JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString('utf8')).acc;
}

type Call = (method: string, path: string, body?: unknown) => Promise<any>;

/** root -> a lander group of one page (redirect type: the default, 307) whose URL carries the lander's hit id. Answers the entrance token. */
async function seedFunnel(call: Call): Promise<string> {
  const id = () => generateAssetId();
  const idFunnelGroup = id();
  await call('POST', '/funnelgroup/save/', { idFunnelGroup, funnelGroupName: 'crash' });
  const idTrafficSource = id();
  await call('POST', '/trafficsource/save/', { idTrafficSource, trafficSourceName: 'crash source', defaultCost: '0.01' });
  const idPage = id();
  await call('POST', '/page/save/', { idPage, pageType: 'lander', pageName: 'crash lander', baseURL: 'https://lp.example.com/crash?h={hit}' });
  const idPageGroup = id();
  await call('POST', '/pagegroup/save/', { idPageGroup, pageGroupName: 'crash landers', pageType: 'lander', pages: [{ idPage }] });
  const rootNode = { idNode: id(), nodeName: 'root', nodeType: 'root', posX: 0.5, posY: 0.5 };
  const landers = { idNode: id(), nodeName: 'landers', nodeType: 'landerGroup', posX: 0.5, posY: 0.5, nodePageGroupParams: { idPageGroup } };
  const idFunnel = id();
  await call('POST', '/funnel/save/', {
    idFunnel,
    idFunnelGroup,
    funnelName: 'crash funnel',
    nodes: [rootNode, landers],
    connections: [{ idConnection: id(), idSourceNode: rootNode.idNode, idTargetNode: landers.idNode, connectionRotatorParams: { weight: 1 } }],
  });
  return `${idFunnel}${idTrafficSource}`;
}

/**
 * Visitors sent by `concurrency` loops until `stop()`: answers the lander hit id of every redirect
 * answered (a 3xx whose Location the visitor got). Requests cut by the kill are not answered, so not counted.
 */
function traffic(edgePort: number, path: string, concurrency: number) {
  const answered: string[] = [];
  let stopped = false;
  const loops = Array.from({ length: concurrency }, async () => {
    while (!stopped) {
      try {
        const answer = await visit(edgePort, DOMAIN, path);
        if (answer.status >= 300 && answer.status < 400) answered.push(paramsOf(answer.location).h);
        else if (!stopped) throw new Error(`the edge answered ${answer.status}: ${answer.body.slice(0, 200)}`);
      } catch (error) {
        if (!stopped && !/ECONNRESET|ECONNREFUSED|socket hang up/.test(String(error))) throw error;
        return;
      }
    }
  });
  return {
    answered,
    done: Promise.all(loops),
    stop: () => {
      stopped = true;
    },
  };
}

/** Every hit id of the window in the warehouse, paged through raw events. */
async function storedHitIds(call: Call): Promise<string[]> {
  const window = { timeStart: new Date(Date.now() - HOUR).toISOString(), timeEnd: new Date(Date.now() + HOUR).toISOString() };
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await call('POST', '/reporting/rawevents/', { ...window, limit: 1000, ...(cursor ? { cursor } : {}) });
    ids.push(...page.hits.map((hit: { hitId: string }) => hit.hitId));
    if (page.nextCursor === null) return ids;
    cursor = page.nextCursor;
  }
}

describe('the tracking edge killed with SIGKILL mid-traffic (standalone: the whole process)', () => {
  it('has every hit of every redirect it answered in the warehouse after the restart, each once', async () => {
    const dir = tempDir('edge-crash');
    const [port, edgePort] = [await freePort(), await freePort()];
    let running: Running | undefined;
    try {
      running = await startStandaloneProcess(dir.path, port, edgePort);
      const call = api(port);
      const accountId = await accountOf(port);
      const path = `/a/${accountId}/fts/${await seedFunnel(call)}`;
      await eventually(async () => expect((await visit(edgePort, DOMAIN, path)).status).toBe(307), 10_000, 50);

      const load = traffic(edgePort, path, 8);
      await eventually(async () => expect(load.answered.length).toBeGreaterThanOrEqual(300), 30_000, 10);
      running.child.kill('SIGKILL');
      expect(await running.exited).toBe('SIGKILL');
      load.stop();
      await load.done;
      const answered = [...load.answered];

      running = await startStandaloneProcess(dir.path, port, edgePort);
      const stored = await eventually(async () => {
        const ids = await storedHitIds(call);
        expect(answered.filter((hitId) => !ids.includes(hitId))).toEqual([]);
        return ids;
      }, 30_000);
      expect(new Set(stored).size).toBe(stored.length);
      // The edge routes again after the restart.
      expect((await visit(edgePort, DOMAIN, path)).status).toBe(307);
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      dir.remove();
    }
  }, 120_000);
});

/** apps/tracking-edge as deployed, its own process, connected to NATS as the tracking-edge user. */
async function startEdgeProcess(nats: { url: string; user: string; password: string }, edgePort: number): Promise<Running> {
  const child = spawn(process.execPath, ['-r', join(root, 'tools', 'register.js'), join(root, 'apps', 'tracking-edge', 'src', 'main.ts')], {
    cwd: root,
    env: {
      ...process.env,
      NATS_URL: nats.url,
      NATS_USER: nats.user,
      NATS_PASSWORD: nats.password,
      HOST: '127.0.0.1',
      PORT: String(edgePort),
      EDGE_DEFAULT_DOMAIN: DOMAIN,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`the tracking edge exited with ${child.exitCode}`);
    expect((await fetch(`http://127.0.0.1:${edgePort}/health/ready`)).status).toBe(200);
  }, 60_000);
  return { child, exited };
}

describe('the tracking edge killed with SIGKILL mid-traffic (distributed: the edge process only)', () => {
  it('has every hit of every redirect it answered in the warehouse, each once, and routes again once restarted', async () => {
    const deployment = await distributedDeployment();
    const edgePort = await freePort();
    let running: Running | undefined;
    try {
      const account = await deployment.newAccount(`edge-crash-${generateAssetId()}@example.com`);
      const call: Call = async (method, path, body) => {
        const answer = await deployment.api.call(method, path, { body, key: account.apiKey });
        if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 300)}`);
        return answer.body;
      };
      const path = `/a/${account.accountId}/fts/${await seedFunnel(call)}`;
      running = await startEdgeProcess(deployment.natsAccess!('tracking-edge'), edgePort);
      await eventually(async () => expect((await visit(edgePort, DOMAIN, path)).status).toBe(307), 10_000, 50);

      const load = traffic(edgePort, path, 8);
      await eventually(async () => expect(load.answered.length).toBeGreaterThanOrEqual(300), 30_000, 10);
      running.child.kill('SIGKILL');
      expect(await running.exited).toBe('SIGKILL');
      load.stop();
      await load.done;
      const answered = [...load.answered];

      // The hits were in the stream HITS before their redirects went out: reporting stores them without the edge.
      const stored = await eventually(async () => {
        const ids = await storedHitIds(call);
        expect(answered.filter((hitId) => !ids.includes(hitId))).toEqual([]);
        return ids;
      }, 30_000);
      expect(new Set(stored).size).toBe(stored.length);

      running = await startEdgeProcess(deployment.natsAccess!('tracking-edge'), edgePort);
      expect((await visit(edgePort, DOMAIN, path)).status).toBe(307);
    } finally {
      running?.child.kill('SIGKILL');
      await running?.exited;
      await deployment.cleanup();
    }
  }, 150_000);
});
