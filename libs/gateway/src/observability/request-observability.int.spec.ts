import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ErrorCodes, IdentitySubjects, ServiceError } from '@funnel/contracts';
import { PinoNestLogger, ServiceClient, captureLogs, createMetricsRegistry } from '@funnel/platform';
import { GatewayModule } from '../gateway.module';
import { createGatewayApp } from '../create-gateway-app';

const API_KEY = 'secret-api-key-0123456789';
const ACCOUNT = 'acc-observed';

/** The gateway over a service client that knows one API key and answers every asset request. */
async function observedGateway() {
  const client = {
    request: async <T>(subject: string, payload: { body: { key?: string } }) => {
      if (subject === IdentitySubjects.authenticateApiKey) {
        if (payload.body.key !== API_KEY) throw ServiceError.unauthorized();
        return { accountId: ACCOUNT, userId: 'user-1', permissions: ['assets:read', 'assets:write'], keyId: 'k1' } as T;
      }
      if (subject === 'assets.visitortag.findById') throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, 'no such tag');
      return { result: [] } as T;
    },
    subscribe: () => () => undefined,
    close: async () => undefined,
  } as unknown as ServiceClient;
  const logs = captureLogs('gateway', 'info');
  const registry = createMetricsRegistry({ defaultMetrics: false });
  const app: NestFastifyApplication = await createGatewayApp(
    GatewayModule.forRoot({ client, metrics: registry, readiness: [] }),
    new PinoNestLogger(logs.logger),
  );
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, logs, fastify: app.getHttpAdapter().getInstance() };
}

describe('gateway access log and HTTP metrics', () => {
  let gateway: Awaited<ReturnType<typeof observedGateway>>;

  beforeAll(async () => {
    gateway = await observedGateway();
  });
  afterAll(() => gateway.app.close());

  const accessLines = () => gateway.logs.entries.filter((entry) => entry['msg'] === 'request');
  const metricsText = async () => (await gateway.fastify.inject({ method: 'GET', url: '/metrics' })).body;

  it('logs one info line per request with method, route pattern, status, duration, correlation id and account, never the key', async () => {
    const before = accessLines().length;
    const response = await gateway.fastify.inject({ method: 'GET', url: `/v1/visitortag/list/?key=${API_KEY}&idCategory=c1` });
    expect(response.statusCode).toBe(200);

    const lines = accessLines().slice(before);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'info',
      method: 'GET',
      route: '/v1/visitortag/list',
      status: 200,
      correlationId: response.headers['x-correlation-id'],
      accountId: ACCOUNT,
    });
    expect(typeof lines[0]['durationMs']).toBe('number');
    expect(gateway.logs.text()).not.toContain(API_KEY);
    expect(gateway.logs.text()).not.toContain('idCategory');
  });

  it('logs failures with their status, and no account before a credential is verified', async () => {
    const before = accessLines().length;
    expect((await gateway.fastify.inject({ method: 'GET', url: '/v1/visitortag/list', headers: { 'x-api-key': 'wrong-key-0123456789' } })).statusCode).toBe(
      401,
    );
    expect((await gateway.fastify.inject({ method: 'GET', url: '/v1/visitortag/find/byId?idTag=x', headers: { 'x-api-key': API_KEY } })).statusCode).toBe(404);

    const [unauthorized, notFound] = accessLines().slice(before);
    expect(unauthorized).toMatchObject({ method: 'GET', route: '/v1/visitortag/list', status: 401 });
    expect(unauthorized).not.toHaveProperty('accountId');
    expect(notFound).toMatchObject({ route: '/v1/visitortag/find/byId', status: 404, accountId: ACCOUNT });
    expect(gateway.logs.text()).not.toContain('wrong-key-0123456789');
  });

  it('counts and times requests by route pattern, method and status', async () => {
    await gateway.fastify.inject({ method: 'POST', url: '/v1/visitortag/save/', headers: { 'x-api-key': API_KEY }, payload: { idTag: 'a' } });
    await gateway.fastify.inject({ method: 'POST', url: '/v1/visitortag/save', headers: { 'x-api-key': API_KEY }, payload: { idTag: 'b' } });
    await gateway.fastify.inject({ method: 'GET', url: '/v1/ids/generate?count=2', headers: { 'x-api-key': API_KEY } });

    const text = await metricsText();
    expect(text).toContain('http_requests_total{route="/v1/visitortag/save",method="POST",status="200"} 2');
    expect(text).toContain('http_requests_total{route="/v1/visitortag/list",method="GET",status="401"} 1');
    expect(text).toContain('http_requests_total{route="/v1/ids/generate",method="GET",status="200"} 1');
    expect(text).toContain('http_request_duration_seconds_count{route="/v1/visitortag/save",method="POST",status="200"} 2');
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",route="\/v1\/visitortag\/save",method="POST",status="200"\} \d+/);
  });

  it('gathers paths no route serves under one label, so clients cannot grow the series', async () => {
    await gateway.fastify.inject({ method: 'GET', url: '/v1/no-such-thing-1', headers: { 'x-api-key': API_KEY } });
    await gateway.fastify.inject({ method: 'GET', url: '/elsewhere/no-such-thing-2' });

    const text = await metricsText();
    expect(text).toContain('http_requests_total{route="unmatched",method="GET",status="404"} 2');
    expect(text).not.toContain('no-such-thing');
  });

  it('logs the ids route with its account, and probes at debug only', async () => {
    const before = accessLines().length;
    await gateway.fastify.inject({ method: 'GET', url: '/v1/ids/generate', headers: { 'x-api-key': API_KEY } });
    await gateway.fastify.inject({ method: 'GET', url: '/health/live' });

    const lines = accessLines().slice(before);
    expect(lines).toEqual([expect.objectContaining({ route: '/v1/ids/generate', status: 200, accountId: ACCOUNT })]);
  });
});
