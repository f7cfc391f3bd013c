import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp } from './outbound-http';
import { callMiddleware, middlewareSignature, type MiddlewareCallRequest } from './middleware-call';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

describe('callMiddleware', () => {
  const hmacSecret = 'a-middleware-hmac-secret-0123';
  const received: Received[] = [];
  let server: Server;
  let port: number;
  const loopback = new OutboundHttp({ allowPrivate: true });
  const guarded = new OutboundHttp();

  beforeAll(async () => {
    // A middleware server: checks the signature, answers the route its path names.
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
        if (req.url === '/hang') return;
        if (req.url === '/fail') return res.writeHead(503).end('{"route":"never"}');
        if (req.url === '/text') return res.writeHead(200).end('vip');
        if (req.headers['x-signature'] !== middlewareSignature(hmacSecret, body)) return res.writeHead(401).end();
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ route: 'vip' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await loopback.close();
    await guarded.close();
  });

  const request = (path: string, over: Partial<MiddlewareCallRequest> = {}): MiddlewareCallRequest => ({
    url: `http://127.0.0.1:${port}${path}`,
    method: 'POST',
    headers: { 'X-Team': 'growth' },
    basicAuth: { username: 'mw', password: 'mw-password' },
    hmacSecret,
    payload: { schema_version: 1, event_type: 'middleware_request' },
    timeoutMs: 2000,
    ...over,
  });

  it('posts the JSON payload with the headers, basic auth and X-Signature (hex HMAC-SHA256 of the body), and answers the route the server names', async () => {
    received.length = 0;
    const result = await callMiddleware(loopback, request('/route'));
    expect(result).toEqual({
      answer: { status: 200, body: '{"route":"vip"}' },
      httpStatus: 200,
      responseTimeMs: expect.any(Number),
      timedOut: false,
      error: null,
    });
    const [got] = received;
    expect(got.method).toBe('POST');
    expect(JSON.parse(got.body)).toEqual({ schema_version: 1, event_type: 'middleware_request' });
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-team']).toBe('growth');
    expect(got.headers.authorization).toBe(`Basic ${Buffer.from('mw:mw-password').toString('base64')}`);
    expect(got.headers['x-signature']).toBe(middlewareSignature(hmacSecret, got.body));
  });

  it('sends a GET without a body, its signature that of the empty body', async () => {
    received.length = 0;
    const result = await callMiddleware(loopback, request('/route', { method: 'GET' }));
    expect(result.answer).toEqual({ status: 200, body: '{"route":"vip"}' });
    expect(received[0]).toMatchObject({ method: 'GET', body: '' });
    expect(received[0].headers['x-signature']).toBe(middlewareSignature(hmacSecret, ''));
  });

  it('never lets a config header replace the signature', async () => {
    const result = await callMiddleware(loopback, request('/route', { headers: { 'X-Signature': 'forged' } }));
    expect(result.answer?.status).toBe(200);
  });

  it('gives a non-2xx answer with its status and body, and says why it is not a success', async () => {
    expect(await callMiddleware(loopback, request('/fail'))).toMatchObject({ answer: { status: 503, body: '{"route":"never"}' }, error: 'HTTP 503' });
  });

  it('gives a 2xx answer that is not JSON as it came (the caller matches it)', async () => {
    expect(await callMiddleware(loopback, request('/text'))).toMatchObject({ answer: { status: 200, body: 'vip' }, error: null });
  });

  it('fails after the timeout when the server does not answer', async () => {
    expect(await callMiddleware(loopback, request('/hang', { timeoutMs: 200 }))).toMatchObject({
      answer: null,
      httpStatus: null,
      timedOut: true,
      error: 'timed out after 200 ms',
    });
  });

  it('refuses a loopback destination under the SSRF rule before connecting', async () => {
    received.length = 0;
    const result = await callMiddleware(guarded, request('/route'));
    expect(result).toMatchObject({ answer: null, httpStatus: null, timedOut: false, error: expect.stringMatching(/^address refused: .*not a public address/) });
    expect(received).toEqual([]);
  });
});
