import { IdentityService } from '@funnel/identity-feature';
import { FUNNEL_NATS_LAYOUT, NatsServiceClient, ServiceClient, createLogger, createNatsUsers, natsAuthorizationConfig, natsUserEnv } from '@funnel/platform';
import { startNatsServer, tempDir } from '@funnel/testing';
import { RunningApp, startStandalone } from '../standalone';
import { startAssetsService, startBillingService, startGateway, startIdentityService, startReportingService, startScriptsService } from '../services';
import { type RunningTrackingEdge, startTrackingEdge } from '../tracking-edge';
import { responseContract } from './response-contract';

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery', apiKey: 'test-admin-key-0123456789' };

/** Every route of the spec's common pattern, per prefix (method, path): written out, so suites check the spec, not the registry. */
export const COMMON_ROUTES: [string, string][] = [
  ['GET', 'list'],
  ['GET', 'find/byId'],
  ['GET', 'find/byIds'],
  ['GET', 'find/byStatus'],
  ['GET', 'find/byCategory'],
  ['POST', 'save'],
  ['PUT', 'save'],
  ['POST', 'duplicate'],
  ['DELETE', 'delete'],
  ['PUT', 'archive'],
  ['PUT', 'unarchive'],
  ['PUT', 'move-category'],
];

export interface Api {
  baseUrl: string;
  /**
   * Request with the admin key (X-API-Key) unless `key` is given ('' for none). The answer is
   * checked against the API document (GET /v1/openapi.json): an answer that does not match it
   * fails the call. `contract: false` skips that, only for answers that are not JSON API answers.
   */
  call(
    method: string,
    path: string,
    options?: { body?: unknown; rawBody?: string; key?: string; headers?: Record<string, string>; contract?: boolean },
  ): Promise<{ status: number; body: any; text: string; headers: Headers }>;
}

export function apiAt(baseUrl: string, defaultKey: string): Api {
  return {
    baseUrl,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...(options.headers ?? {}) };
      const key = options.key ?? defaultKey;
      if (key) headers['x-api-key'] = key;
      let payload: string | undefined;
      if (options.rawBody !== undefined) payload = options.rawBody;
      else if (options.body !== undefined) payload = JSON.stringify(options.body);
      if (payload !== undefined) headers['content-type'] = headers['content-type'] ?? 'application/json';
      const response = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
      const text = await response.text();
      let body: unknown = undefined;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      if (options.contract !== false) {
        const problem = responseContract().problem(method, path, response.status, text, body);
        if (problem) throw new Error(problem);
      }
      return { status: response.status, body, text, headers: response.headers };
    },
  };
}

/** A running /v1 service in one of the two modes, with the bootstrap admin and a way to add accounts. */
export interface Deployment {
  mode: 'standalone' | 'distributed';
  api: Api;
  dataDir: string;
  /** Creates another account with its own user and API key. */
  newAccount(email: string): Promise<{ apiKey: string; accountId: string }>;
  /** Stops everything, keeping DATA_DIR. */
  stop(): Promise<void>;
  /** Starts again on the same DATA_DIR. */
  restart(): Promise<void>;
  /** Stops one service (distributed mode only), to see the gateway answer 503. */
  stopService?(name: 'assets' | 'reporting'): Promise<void>;
  /** Starts a service stopped by stopService again (distributed mode only). */
  startService?(name: 'reporting'): Promise<void>;
  /**
   * A client of the internal subjects (`reporting.hits.ingest`, `reporting.hits.get`): the in-process
   * bus in standalone mode, the tracking edge's NATS user in distributed mode.
   */
  internal(): ServiceClient;
  /**
   * The tracking edge's base URL (`http://127.0.0.1:<port>`), loaded and serving: visitor links on the
   * default domain 127.0.0.1 name their account, `${edgeUrl()}/a/<accountId>/fts/<token>`.
   */
  edgeUrl(): string;
  /** Distributed mode: the NATS server's URL and an app's user (as its process gets them), for a test that connects as that app. */
  natsAccess?(app: string): { url: string; user: string; password: string };
  /** Stops what still runs (each mode the same way), then removes DATA_DIR. */
  cleanup(): Promise<void>;
}

function baseEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    DATA_DIR: dataDir,
    // Failed logins and refusals are logged at warn; the tests provoke hundreds of them.
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'error',
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    BOOTSTRAP_API_KEY: ADMIN.apiKey,
    PORT: '0',
    // Standalone's visitor links on a free port; links name their account on this default domain:
    // http://127.0.0.1:<edge port>/a/<accountId>/fts/<token> (Deployment.edgeUrl()).
    EDGE_PORT: '0',
    EDGE_DEFAULT_DOMAIN: '127.0.0.1',
    HOST: '127.0.0.1',
    OPS_PORT: '0',
    API_KEY_CACHE_MS: '1000',
    // The suites send requests far faster than one client may (limits.e2e.spec.ts sets and tests the limit).
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BURST: '1000000',
  };
}

async function accountMaker(identity: () => IdentityService | undefined) {
  return async (email: string) => {
    const service = identity();
    if (!service) throw new Error('identity service is not running');
    const created = await service.createUserWithAccount({ email, password: 'another password', apiKey: true });
    return { apiKey: created.apiKey!, accountId: created.accountId };
  };
}

/** `env` adds or overrides variables (e.g. a short ACCESS_TOKEN_TTL_SECONDS). */
export async function standaloneDeployment(env: NodeJS.ProcessEnv = {}): Promise<Deployment> {
  // Removed by cleanup(), or after the test file when a deployment fails to start.
  const dir = tempDir('funnel-e2e');
  const dataDir = dir.path;
  let running: RunningApp | undefined;
  let api!: Api;
  const start = async () => {
    running = await startStandalone({ ...baseEnv(dataDir), ...env }, { reporting: { queues: { backoffMs: [200], pollIntervalMs: 50 } } });
    api = apiAt(`http://127.0.0.1:${running.port}/v1`, ADMIN.apiKey);
  };
  const stop = async () => {
    const app = running;
    running = undefined;
    await app?.close();
  };
  await start();
  const deployment: Deployment = {
    mode: 'standalone',
    get api() {
      return api;
    },
    dataDir,
    newAccount: await accountMaker(() => running?.context?.get(IdentityService)),
    internal: () => {
      if (!running?.internal) throw new Error('the standalone deployment is stopped');
      return running.internal;
    },
    edgeUrl: () => {
      if (running?.edgePort === undefined) throw new Error('the standalone deployment is stopped');
      return `http://127.0.0.1:${running.edgePort}`;
    },
    stop,
    restart: start,
    // Stops the app too (its HTTP server, SQLite files and timers), unless a test stopped it already.
    cleanup: async () => {
      await stop();
      dir.remove();
    },
  };
  return deployment;
}

export async function distributedDeployment(extraEnv: NodeJS.ProcessEnv = {}): Promise<Deployment> {
  // Removed by cleanup(), or after the test file when a deployment fails to start.
  const dir = tempDir('funnel-e2e');
  const dataDir = dir.path;
  // Secured as deployed: each app connects with its own NATS user and only the permissions it needs.
  const natsUsers = createNatsUsers(FUNNEL_NATS_LAYOUT);
  const nats = await startNatsServer({ config: natsAuthorizationConfig(FUNNEL_NATS_LAYOUT, natsUsers) });
  const env = { ...baseEnv(dataDir), NATS_URL: nats.url, RPC_TIMEOUT_MS: '2000', ...extraEnv };
  const envOf = (app: string) => ({ ...env, ...natsUserEnv(natsUsers, app) });
  const apps: Record<string, RunningApp | undefined> = {};
  let edge: RunningTrackingEdge | undefined;
  let api!: Api;
  let internal: NatsServiceClient | undefined;
  const start = async () => {
    apps.identity = await startIdentityService(envOf('identity-service'));
    apps.assets = await startAssetsService(envOf('assets-service'));
    apps.scripts = await startScriptsService(envOf('scripts-service'));
    apps.billing = await startBillingService(envOf('billing-service'));
    apps.reporting = await startReportingService(envOf('reporting-service'), { reporting: { queues: { backoffMs: [200] } } });
    // After reporting-service, which creates the stream HITS the edge publishes to.
    apps.edge = edge = await startTrackingEdge(envOf('tracking-edge'));
    await edge.edge.whenReady();
    apps.gateway = await startGateway(envOf('gateway'));
    api = apiAt(`http://127.0.0.1:${apps.gateway.port}/v1`, ADMIN.apiKey);
  };
  const stop = async () => {
    await internal?.close();
    internal = undefined;
    edge = undefined;
    // The edge before reporting: its last hits reach the stream HITS while reporting still consumes it.
    for (const name of ['gateway', 'edge', 'reporting', 'billing', 'scripts', 'assets', 'identity']) {
      await apps[name]?.close();
      apps[name] = undefined;
    }
  };
  await start();
  return {
    mode: 'distributed',
    get api() {
      return api;
    },
    dataDir,
    newAccount: await accountMaker(() => apps.identity?.context?.get(IdentityService)),
    stop,
    restart: start,
    async stopService(name) {
      await apps[name]?.close();
      apps[name] = undefined;
    },
    async startService(name) {
      if (name === 'reporting') apps.reporting = await startReportingService(envOf('reporting-service'), { reporting: { queues: { backoffMs: [200] } } });
    },
    edgeUrl() {
      if (!edge) throw new Error('the distributed deployment is stopped');
      return `http://127.0.0.1:${edge.port}`;
    },
    natsAccess(app) {
      const user = natsUserEnv(natsUsers, app);
      return { url: nats.url, user: user.NATS_USER, password: user.NATS_PASSWORD };
    },
    internal() {
      const tracking = natsUserEnv(natsUsers, 'tracking-edge');
      internal ??= new NatsServiceClient(nats.url, {
        timeoutMs: 5000,
        logger: createLogger('tracking-edge', 'error'),
        access: { user: tracking.NATS_USER, password: tracking.NATS_PASSWORD, inboxPrefix: '_INBOX_tracking_edge' },
      });
      return internal;
    },
    cleanup: async () => {
      await stop();
      await nats.stop();
      dir.remove();
    },
  };
}

/**
 * Declares `suite` once per mode, each against its own deployment started before its tests and
 * cleaned up after them; `d()` is the current mode's deployment. `env` adds variables to both.
 */
export function describeInBothModes(title: string, suite: (d: () => Deployment) => void, env: NodeJS.ProcessEnv = {}): void {
  describe.each([
    ['standalone', standaloneDeployment],
    ['distributed', distributedDeployment],
  ] as const)(`${title} in %s mode`, (_mode, deploy) => {
    let deployment: Deployment | undefined;
    beforeAll(async () => {
      deployment = await deploy(env);
    });
    afterAll(async () => {
      await deployment?.cleanup();
    });
    suite(() => {
      if (!deployment) throw new Error(`the ${_mode} deployment did not start`);
      return deployment;
    });
  });
}
