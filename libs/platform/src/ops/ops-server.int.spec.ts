import { createMetricsRegistry, RpcMetrics } from './metrics';
import { type OpsServer, startOpsServer } from './ops-server';

describe('startOpsServer', () => {
  let server: OpsServer;
  let natsUp = true;
  const registry = createMetricsRegistry({ defaultLabels: { app: 'assets-service' } });
  new RpcMetrics(registry, 'server').observe('assets.visitortag.findById', 'ok', 0.002);

  beforeAll(async () => {
    server = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      registry,
      checks: [
        { name: 'nats', check: () => natsUp },
        { name: 'eventstore', check: async () => true },
      ],
    });
  });
  afterAll(() => server.close());

  const get = (path: string, method = 'GET') => fetch(`http://127.0.0.1:${server.port}${path}`, { method });

  it('listens on the port the OS picked', () => {
    expect(server.port).toBeGreaterThan(0);
  });

  it('answers liveness with 200 {status: ok}', async () => {
    const response = await get('/health/live');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('answers readiness with 200 and the report while every check passes', async () => {
    natsUp = true;
    const response = await get('/health/ready');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ready: true, checks: { nats: true, eventstore: true } });
  });

  it('answers readiness with 503 and the failing check otherwise', async () => {
    natsUp = false;
    const response = await get('/health/ready');
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ ready: false, checks: { nats: false, eventstore: true } });
    natsUp = true;
  });

  it('serves Prometheus metrics', async () => {
    const response = await get('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toContain('rpc_server_requests_total{subject="assets.visitortag.findById",outcome="ok",app="assets-service"} 1');
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('answers 404 for other paths and 405 for other methods', async () => {
    expect((await get('/nope')).status).toBe(404);
    expect((await get('/health/live', 'POST')).status).toBe(405);
  });

  it('frees the port on close', async () => {
    const other = await startOpsServer({ port: 0, checks: [], registry: createMetricsRegistry({ defaultMetrics: false }) });
    await other.close();
    await expect(fetch(`http://127.0.0.1:${other.port}/health/live`)).rejects.toThrow();
  });
});
