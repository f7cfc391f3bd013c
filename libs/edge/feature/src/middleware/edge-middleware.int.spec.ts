// EdgeMiddleware against a local middleware server (OUTBOUND_ALLOW_PRIVATE's client): the request it
// sends, the route each answer takes, timeouts, failures, the per-origin bound and the request budget.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp, middlewareSignature } from '@funnel/platform';
import type { MiddlewareCall } from '@funnel/routing';
import { EdgeMiddleware, settleMiddlewareCalls } from './edge-middleware';
import type { MiddlewareSecretSource } from './middleware-secrets';

const HMAC = 'edge-middleware-hmac-secret-01';
const ACCOUNT = 'ACCOUNT00001';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('EdgeMiddleware', () => {
  const received: Received[] = [];
  const hanging: (() => void)[] = [];
  let server: Server;
  let base: string;
  const http = new OutboundHttp({ allowPrivate: true, timeoutMs: 10_000 });
  const asked: string[] = [];
  const secrets: MiddlewareSecretSource = {
    secretsOf: async (_account, _funnel, call) => {
      asked.push(call.idMiddlewareConfig);
      return { config: { basicAuthPassword: 'mw-pass', hmacSecret: HMAC }, node: null };
    },
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        received.push({ path: req.url!, headers: req.headers, body });
        if (req.url === '/hang') return void hanging.push(() => res.writeHead(200).end('{}'));
        if (req.url === '/fail') return void res.writeHead(500).end('{"tier":"gold"}');
        if (req.headers['x-signature'] !== middlewareSignature(HMAC, body)) return void res.writeHead(401).end();
        const tier = req.url === '/gold' ? 'gold' : 'none';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tier, score: 80 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    for (const answer of hanging) answer();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await http.close();
  });

  const call = (path: string, hitId: string, timeoutMs = 2000): MiddlewareCall => ({
    idNode: 'NODE00000001',
    idMiddlewareConfig: 'MWCONFIG0001',
    config: {
      idMiddlewareConfig: 'MWCONFIG0001',
      routes: [
        { idRoute: 'default', priority: 0, isDefault: true },
        { idRoute: 'gold', priority: 1, rules: [{ field: 'body_json.tier', operator: 'is', value: 'gold' }] },
      ],
      destination: { url: `${base}${path}`, method: 'POST', timeoutMs, headers: { 'X-Team': 'growth' }, basicAuth: { username: 'mw' }, hasHmacSecret: true },
    },
    payload: { schema_version: 1, event_type: 'middleware_request', request_id: hitId },
    timeoutMs,
  });

  it('posts the payload signed, with the headers and basic auth, and takes the route the answer matches', async () => {
    received.length = 0;
    const middleware = new EdgeMiddleware({ http, secrets, limits: { concurrency: 4, queue: 4 }, budgetMs: 5000 });
    const request = middleware.forRequest(ACCOUNT, 'FUNNEL000001');
    expect(await request.port(call('/gold', 'HIT000000001'))).toEqual({ routeId: 'gold' });
    expect(await request.port(call('/plain', 'HIT000000002'))).toEqual({ failure: 'no route of the config matches the answer' });
    expect(received[0].headers['x-team']).toBe('growth');
    expect(received[0].headers.authorization).toBe(`Basic ${Buffer.from('mw:mw-pass').toString('base64')}`);
    expect(JSON.parse(received[0].body)).toEqual({ schema_version: 1, event_type: 'middleware_request', request_id: 'HIT000000001' });
    expect([...request.calls.entries()]).toEqual([
      ['HIT000000001', { idMiddlewareConfig: 'MWCONFIG0001', matchedRouteId: 'gold', defaultReason: '', status: 200, latencyMs: expect.any(Number) }],
      ['HIT000000002', { idMiddlewareConfig: 'MWCONFIG0001', matchedRouteId: '', defaultReason: 'noMatch', status: 200, latencyMs: expect.any(Number) }],
    ]);
  });

  it('takes the default on a failure, a timeout, a spent budget, and says why', async () => {
    const middleware = new EdgeMiddleware({ http, secrets, limits: { concurrency: 4, queue: 4 }, budgetMs: 5000 });
    const request = middleware.forRequest(ACCOUNT, 'FUNNEL000001');
    await request.port(call('/fail', 'HIT00000000A'));
    await request.port(call('/hang', 'HIT00000000B', 100));
    const spent = middleware.forRequest(ACCOUNT, 'FUNNEL000001', performance.now() - 6000);
    received.length = 0;
    await spent.port(call('/gold', 'HIT00000000C'));
    expect(received).toEqual([]);
    expect(request.calls.get('HIT00000000A')).toMatchObject({ defaultReason: 'failure', status: 500 });
    expect(request.calls.get('HIT00000000B')).toMatchObject({ defaultReason: 'timeout', status: 0 });
    expect(spent.calls.get('HIT00000000C')).toMatchObject({ defaultReason: 'timeout', status: 0 });
  });

  it('bounds the calls in flight to one origin: beyond the slots and the queue, a call takes the default at once (overloaded)', async () => {
    hanging.length = 0;
    const middleware = new EdgeMiddleware({ http, secrets, limits: { concurrency: 2, queue: 1 }, budgetMs: 10_000 });
    const request = middleware.forRequest(ACCOUNT, 'FUNNEL000001');
    const slow = [1, 2, 3].map((n) => request.port(call('/hang', `HIT0000000S${n}`, 5000)));
    while (hanging.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(middleware.load(new URL(base).origin)).toEqual({ active: 2, waiting: 1 });
    expect(await request.port(call('/gold', 'HIT0000000S4'))).toEqual({ failure: 'too many calls to this destination are in flight' });
    expect(request.calls.get('HIT0000000S4')).toMatchObject({ defaultReason: 'overloaded', status: 0 });
    // The slow server answers: the queued call gets its slot and is made.
    while (hanging.length > 0) hanging.shift()!();
    while (hanging.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
    hanging.shift()!();
    await Promise.all(slow);
    expect(['HIT0000000S1', 'HIT0000000S2', 'HIT0000000S3'].map((id) => request.calls.get(id)?.defaultReason)).toEqual(['noMatch', 'noMatch', 'noMatch']);
    expect(middleware.load(new URL(base).origin)).toEqual({ active: 0, waiting: 0 });
  });

  it('marks a matched route that the funnel does not connect as unconnected', () => {
    const calls = new Map([['HIT1', { idMiddlewareConfig: 'C', matchedRouteId: 'gold', defaultReason: '' as const, status: 200, latencyMs: 3 }]]);
    settleMiddlewareCalls(calls, [{ type: 'middlewareCall', idNode: 'N', idMiddlewareConfig: 'C', routeId: 'default', from: 'default' }]);
    expect(calls.get('HIT1')?.defaultReason).toBe('unconnected');
  });
});
