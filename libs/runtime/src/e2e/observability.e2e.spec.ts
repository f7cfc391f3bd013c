import { generateAssetId } from '@funnel/contracts';
import { type RunningNatsServer, type TempDir, eventually, startNatsServer, tempDir } from '@funnel/testing';
import { startAssetsService, startBillingService, startGateway, startIdentityService, startReportingService, startScriptsService } from '../services';
import { type RunningApp, startStandalone } from '../standalone';
import { ADMIN } from './harness';
import { EVENT_STORE, type EventStore } from '@funnel/eventstore';
import type Database from 'better-sqlite3';

const envFor = (dataDir: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
  BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
  BOOTSTRAP_API_KEY: ADMIN.apiKey,
  PORT: '0',
  EDGE_PORT: '0',
  HOST: '127.0.0.1',
  OPS_PORT: '0',
  ...extra,
});

const get = async (port: number, path: string, headers: Record<string, string> = {}) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  return { status: response.status, text: await response.text() };
};

/** The value of one series: `name` with (at least) these labels, in any order. */
const sample = (text: string, name: string, labels: Record<string, string>): number | undefined => {
  const wanted = Object.entries(labels).map(([label, value]) => `${label}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^(\w+)\{(.*)\} (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const present = match[2].split(',');
    if (wanted.every((pair) => present.includes(pair))) return Number(match[3]);
  }
  return undefined;
};

const createTag = async (port: number) => {
  const response = await fetch(`http://127.0.0.1:${port}/v1/visitortag/save`, {
    method: 'POST',
    headers: { 'x-api-key': ADMIN.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ idTag: generateAssetId(), tagName: 'Observed', color: '#00ff00' }),
  });
  expect(response.status).toBe(200);
};

describe('observability in distributed mode', () => {
  let dir: TempDir;
  let nats: RunningNatsServer;
  let env: NodeJS.ProcessEnv;
  const apps: Partial<Record<'identity' | 'assets' | 'scripts' | 'billing' | 'reporting' | 'gateway', RunningApp>> = {};
  const port = (name: keyof typeof apps) => apps[name]!.port;

  beforeAll(async () => {
    dir = tempDir('funnel-observability');
    // JetStream: the reporting service keeps its job queues there.
    nats = await startNatsServer();
    env = envFor(dir.path, { NATS_URL: nats.url, RPC_TIMEOUT_MS: '2000' });
    apps.identity = await startIdentityService(env);
    apps.assets = await startAssetsService(env);
    apps.scripts = await startScriptsService(env);
    apps.billing = await startBillingService(env);
    apps.reporting = await startReportingService(env);
    apps.gateway = await startGateway(env);
  });

  afterAll(async () => {
    for (const name of ['gateway', 'reporting', 'billing', 'scripts', 'assets', 'identity'] as const) await apps[name]?.close();
    await nats?.stop();
    dir?.remove();
  });

  it('shows RPC client metrics on the gateway and RPC server metrics on the service', async () => {
    await createTag(port('gateway'));
    expect((await get(port('gateway'), '/v1/visitortag/list', { 'x-api-key': ADMIN.apiKey })).status).toBe(200);

    const gateway = (await get(port('gateway'), '/metrics')).text;
    expect(gateway).toContain('rpc_client_requests_total{subject="assets.visitortag.list",outcome="ok",app="gateway"} 1');
    expect(gateway).toContain('rpc_client_requests_total{subject="identity.apikey.authenticate",outcome="ok",app="gateway"}');
    expect(sample(gateway, 'rpc_client_request_duration_seconds_count', { subject: 'assets.visitortag.create', outcome: 'ok', app: 'gateway' })).toBe(1);
    expect(gateway).toContain('http_requests_total{route="/v1/visitortag/list",method="GET",status="200",app="gateway"} 1');

    const assets = (await get(port('assets'), '/metrics')).text;
    expect(assets).toContain('rpc_server_requests_total{subject="assets.visitortag.list",outcome="ok",app="assets-service"} 1');
    expect(assets).toContain('rpc_server_requests_total{subject="assets.visitortag.create",outcome="ok",app="assets-service"} 1');
    expect(sample(assets, 'rpc_server_request_duration_seconds_count', { subject: 'assets.visitortag.list', outcome: 'ok' })).toBe(1);
    const identity = (await get(port('identity'), '/metrics')).text;
    expect(identity).toContain('rpc_server_requests_total{subject="identity.apikey.authenticate",outcome="ok",app="identity-service"}');
  });

  it('shows the lag of every projector of the services that run them', async () => {
    const assets = (await get(port('assets'), '/metrics')).text;
    expect(assets).toContain('projection_lag_events{projection="assets-read-model",app="assets-service"} 0');
    const identity = (await get(port('identity'), '/metrics')).text;
    for (const projection of ['identity-read-model', 'identity-user-settings', 'identity-sessions']) {
      expect(identity).toContain(`projection_lag_events{projection="${projection}",app="identity-service"} 0`);
    }
    const billing = (await get(port('billing'), '/metrics')).text;
    expect(billing).toContain('projection_lag_events{projection="billing-domains",app="billing-service"} 0');
  });

  it('answers every service ping, so the gateway is ready', async () => {
    const ready = await get(port('gateway'), '/health/ready');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.text)).toEqual({
      ready: true,
      checks: { nats: true, assets: true, identity: true, scripts: true, billing: true, reporting: true },
    });
  });

  it('is not ready while a service does not answer its ping, and ready again once it does', async () => {
    await apps.assets!.close();
    apps.assets = undefined;
    const notReady = await eventually(async () => {
      const ready = await get(port('gateway'), '/health/ready');
      expect(ready.status).toBe(503);
      return JSON.parse(ready.text);
    }, 15_000);
    expect(notReady).toEqual({ ready: false, checks: { nats: true, assets: false, identity: true, scripts: true, billing: true, reporting: true } });

    apps.assets = await startAssetsService(env);
    await eventually(async () => expect((await get(port('gateway'), '/health/ready')).status).toBe(200), 15_000);
  });
});

describe('observability in standalone mode', () => {
  let dir: TempDir;
  let app: RunningApp;

  beforeAll(async () => {
    dir = tempDir('funnel-observability');
    app = await startStandalone(envFor(dir.path));
  });
  afterAll(async () => {
    await app?.close();
    dir?.remove();
  });

  it('shows RPC client and server metrics, HTTP metrics and projection lag on /metrics', async () => {
    await createTag(app.port);
    const text = (await get(app.port, '/metrics')).text;
    expect(text).toContain('rpc_client_requests_total{subject="assets.visitortag.create",outcome="ok",app="standalone"} 1');
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.create",outcome="ok",app="standalone"} 1');
    expect(sample(text, 'rpc_server_request_duration_seconds_count', { subject: 'assets.visitortag.create', outcome: 'ok' })).toBe(1);
    expect(text).toContain('http_requests_total{route="/v1/visitortag/save",method="POST",status="200",app="standalone"} 1');
    for (const projection of ['assets-read-model', 'identity-read-model', 'identity-user-settings', 'identity-sessions', 'billing-domains']) {
      expect(text).toContain(`projection_lag_events{projection="${projection}",app="standalone"} 0`);
    }
  });

  it('answers writes 507 STORE.FULL and is not ready while the event log has no room, and takes writes and is ready again once it has', async () => {
    // The event log's own connection: its page limit stands in for a full disk.
    const db = (app.context!.get<EventStore>(EVENT_STORE) as unknown as { db: Database.Database }).db;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const save = () =>
      fetch(`http://127.0.0.1:${app.port}/v1/visitortag/save`, {
        method: 'POST',
        headers: { 'x-api-key': ADMIN.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ idTag: generateAssetId(), tagName: 'Full '.repeat(50), color: '#00ff00' }),
      });
    try {
      let refused: Response | undefined;
      // A write may still fit in the last page: the disk is full once one is refused.
      for (let attempt = 0; attempt < 50 && !refused; attempt++) {
        const response = await save();
        if (response.status !== 200) refused = response;
      }
      expect(refused?.status).toBe(507);
      expect(await refused!.json()).toMatchObject({ code: 'STORE.FULL', error: expect.stringContaining('storage is full') });
      const notReady = await get(app.port, '/health/ready');
      expect(notReady.status).toBe(503);
      expect(JSON.parse(notReady.text)).toEqual({ ready: false, checks: { assets: true, identity: true, billing: true, integrations: true, storage: false } });
    } finally {
      db.pragma('max_page_count = 1073741823');
    }
    const ready = await get(app.port, '/health/ready');
    expect(JSON.parse(ready.text)).toEqual({ ready: true, checks: { assets: true, identity: true, billing: true, integrations: true, storage: true } });
    expect((await save()).status).toBe(200);
  });
});
