import { selfSignedCertificate } from '@funnel/testing';
import { createServer, type Server } from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OutboundHttp } from './outbound-http';
import { generateSigningSecret, verifyWebhook } from './standard-webhooks';
import { deliverWebhook, isReservedDeliveryHeader, type WebhookDeliveryRequest } from './webhook-delivery';

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  verification: string;
}

describe('deliverWebhook', () => {
  const { cert, key } = selfSignedCertificate(['localhost', '127.0.0.1', '::1']);
  const signingSecret = generateSigningSecret();
  const basicAuth = { username: 'hook-user', password: 'hook-password-7f3a' };
  const expectedAuthorization = `Basic ${Buffer.from('hook-user:hook-password-7f3a').toString('base64')}`;
  const received: Received[] = [];
  let connections = 0;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    // The receiver a user would run: verify the raw body's signature and the basic auth, then answer.
    server = createServer({ cert, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        let verification = 'ok';
        try {
          verifyWebhook(signingSecret, req.headers, body, 300);
          if (req.headers.authorization !== expectedAuthorization) verification = 'wrong basic auth';
        } catch (error) {
          verification = (error as Error).message;
        }
        received.push({ method: req.method!, path: req.url!, headers: req.headers, body, verification });
        if (req.url === '/hang') return; // never answers
        if (req.url === '/fail') return res.writeHead(500).end('broken');
        if (req.url === '/redirect') return res.writeHead(302, { location: `https://127.0.0.1:${port}/target` }).end();
        res.writeHead(verification === 'ok' ? 200 : 401).end(verification);
      });
    });
    server.on('connection', () => (connections += 1));
    // Dual-stack: 127.0.0.1, ::1 and ::ffff:127.0.0.1 all reach it, so a refusal that failed would show here.
    await new Promise<void>((resolve) => server.listen(0, '::', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const delivery = (url: string, extra: Partial<WebhookDeliveryRequest> = {}): WebhookDeliveryRequest => ({
    url,
    headers: { 'X-Custom': 'yes' },
    basicAuth,
    signingSecret,
    eventType: 'webhook.test',
    payload: { message: 'hello', n: 1 },
    ...extra,
  });

  describe('with OUTBOUND_ALLOW_PRIVATE (tests and development)', () => {
    const http = new OutboundHttp({ allowPrivate: true, ca: cert });
    afterAll(() => http.close());

    it('delivers a signed JSON event with the basic auth and the config headers over HTTPS', async () => {
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/hook`));

      expect(result).toEqual({ delivered: true, httpStatus: 200, responseTimeMs: expect.any(Number), error: null });
      const request = received.at(-1)!;
      expect(request).toMatchObject({ method: 'POST', path: '/hook', verification: 'ok' });
      expect(request.headers).toMatchObject({ 'content-type': 'application/json', 'x-custom': 'yes', authorization: expectedAuthorization });
      expect(request.headers['webhook-id']).toMatch(/^msg_/);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(JSON.parse(request.body)).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { message: 'hello', n: 1 } });
      expect(Number.isNaN(Date.parse(JSON.parse(request.body).timestamp))).toBe(false);
    });

    it('does not let the config headers replace the signature, body, host or basic auth headers, and leaves out those Node cannot send', async () => {
      const headers = {
        'X-Custom': 'yes',
        'Webhook-Signature': 'v1,forged',
        'webhook-id': 'msg_forged',
        'Content-Type': 'text/plain',
        Host: 'evil.example',
        Authorization: 'Bearer not-this',
        'Bad Name': 'x',
        'X-Split': 'a\r\nInjected: 1',
        'X-Bell': 'a\u0007b',
        'X-Emoji': 'v😀',
      };
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/hook`, { headers }));

      expect(result.delivered).toBe(true);
      const request = received.at(-1)!;
      expect(request.verification).toBe('ok');
      expect(request.headers['webhook-id']).not.toBe('msg_forged');
      expect(request.headers).toMatchObject({ 'content-type': 'application/json', host: `127.0.0.1:${port}`, authorization: expectedAuthorization });
      expect(request.headers).not.toHaveProperty('injected');
      expect(request.headers).not.toHaveProperty('x-split');
      expect(request.headers).not.toHaveProperty('x-bell');
      expect(request.headers).not.toHaveProperty('x-emoji');
    });

    it('sends the config Authorization header when there is no basic auth', async () => {
      await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/hook`, { basicAuth: undefined, headers: { Authorization: 'Bearer token-1' } }));
      expect(received.at(-1)!.headers.authorization).toBe('Bearer token-1');
    });

    it('reports a non-2xx answer as not delivered, without echoing any secret', async () => {
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/fail`));

      expect(result).toEqual({ delivered: false, httpStatus: 500, responseTimeMs: expect.any(Number), error: 'HTTP 500' });
      expect(JSON.stringify(result)).not.toContain(basicAuth.password);
      expect(JSON.stringify(result)).not.toContain(signingSecret.slice(6));
    });

    it('reports a receiver that refuses the signature (another secret) as not delivered', async () => {
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/hook`, { signingSecret: generateSigningSecret() }));
      expect(result).toMatchObject({ delivered: false, httpStatus: 401, error: 'HTTP 401' });
      expect(received.at(-1)!.verification).toBe('no matching signature');
    });

    it('does not follow a redirect', async () => {
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/redirect`));

      expect(result).toMatchObject({ delivered: false, httpStatus: 302, error: 'HTTP 302 (redirects are not followed)' });
      expect(received.at(-1)!.path).toBe('/redirect');
      expect(received.some((r) => r.path === '/target')).toBe(false);
    });

    it('gives up on a receiver that never answers', async () => {
      const result = await deliverWebhook(http, delivery(`https://127.0.0.1:${port}/hang`, { timeoutMs: 300 }));

      expect(result).toEqual({ delivered: false, httpStatus: null, responseTimeMs: expect.any(Number), error: 'timed out after 300 ms' });
      expect(received.at(-1)!.path).toBe('/hang');
    });

    it('reports a certificate it does not trust', async () => {
      const strict = new OutboundHttp({ allowPrivate: true });
      const result = await deliverWebhook(strict, delivery(`https://127.0.0.1:${port}/hook`));
      await strict.close();
      expect(result).toMatchObject({ delivered: false, httpStatus: null, error: 'TLS failed: DEPTH_ZERO_SELF_SIGNED_CERT' });
    });
  });

  describe('with the address rule on (the default)', () => {
    const http = new OutboundHttp({ ca: cert });
    afterAll(() => http.close());

    it.each([
      ['http://127.0.0.1:<port>/', 'address refused: 127.0.0.1 is not a public address'],
      ['https://127.0.0.1:<port>/hook', 'address refused: 127.0.0.1 is not a public address'],
      ['http://10.0.0.1/', 'address refused: 10.0.0.1 is not a public address'],
      ['http://169.254.169.254/', 'address refused: 169.254.169.254 is not a public address'],
      ['https://[::1]:<port>/hook', 'address refused: ::1 is not a public address'],
      ['https://[::ffff:127.0.0.1]:<port>/hook', 'address refused: ::ffff:7f00:1 is not a public address'],
      ['https://localhost:<port>/hook', /^address refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/],
    ])('refuses %s and connects nowhere', async (template, error) => {
      const before = { connections, received: received.length };
      const result = await deliverWebhook(http, delivery(template.replace('<port>', String(port))));

      expect(result).toEqual({ delivered: false, httpStatus: null, responseTimeMs: expect.any(Number), error: expect.stringMatching(error) });
      expect({ connections, received: received.length }).toEqual(before);
    });

    it('refuses a URL that is not http(s) or carries credentials', async () => {
      expect((await deliverWebhook(http, delivery('file:///etc/passwd'))).error).toBe('invalid URL: file: URLs are not allowed');
      expect((await deliverWebhook(http, delivery('https://user:pw@example.com/'))).error).toBe('invalid URL: credentials in the URL are not allowed');
    });
  });
});

describe('isReservedDeliveryHeader', () => {
  it.each([
    'webhook-id',
    'Webhook-Signature',
    'WEBHOOK-TIMESTAMP',
    'webhook-anything',
    'Content-Type',
    'content-length',
    'Host',
    'Transfer-Encoding',
    'connection',
  ])('%s is reserved', (name) => expect(isReservedDeliveryHeader(name)).toBe(true));
  it.each(['X-Custom', 'Authorization', 'User-Agent', 'x-webhook-id'])('%s is not', (name) => expect(isReservedDeliveryHeader(name)).toBe(false));
});
