import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type JWK, SignJWT, exportJWK, generateKeyPair } from 'jose';
import { ACCESS_TOKEN } from '@funnel/contracts';
import { BillingSubjects, IdentityRequestBody, IdentitySubjects, RpcRequest, ServiceError } from '@funnel/contracts';
import { ServiceClient, createMetricsRegistry } from '@funnel/platform';
import { GatewayModule, GatewayOptions } from './gateway.module';
import { createGatewayApp } from './create-gateway-app';

const GOOD_KEY = 'good-key-0123456789abcdef';
const BILLING_KEY = 'billing-key-0123456789abcdef';
/** A key of the shape identity issues (192 random bits). */
const ISSUED_KEY = 'fk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

/** The gateway over a service client that records what it forwards; identity knows one API key and publishes `signingKeys`. */
async function gatewayRecording(trustedProxies: string[], options: Partial<GatewayOptions> = {}, signingKeys: JWK[] = []) {
  const forwarded: { subject: string; payload: RpcRequest<IdentityRequestBody> }[] = [];
  let keyChecks = 0;
  const client = {
    request: async <T>(subject: string, payload: RpcRequest<IdentityRequestBody>) => {
      if (subject === IdentitySubjects.authenticateApiKey) {
        keyChecks++;
        const key = (payload.body as unknown as { key: string }).key;
        if (key === BILLING_KEY) return { accountId: 'A1', userId: 'U1', permissions: ['billing:manage'], keyId: 'k2' } as T;
        if (key === ISSUED_KEY) return { accountId: 'A1', userId: 'U1', permissions: ['assets:read'], keyId: 'k3' } as T;
        if (key !== GOOD_KEY) throw ServiceError.unauthorized();
        return { accountId: 'A1', userId: 'U1', permissions: ['assets:read'], keyId: 'k1' } as T;
      }
      if (subject === IdentitySubjects.signingKeys) return { keys: signingKeys } as T;
      forwarded.push({ subject, payload });
      if (payload.body.params?.domain === 'missing.example.com') throw ServiceError.notFound('NOT_FOUND', 'no custom domain missing.example.com');
      if (payload.body.params?.domain === 'broken.example.com') throw new Error('internal detail');
      return {} as T;
    },
    subscribe: () => () => undefined,
    close: async () => undefined,
  } as unknown as ServiceClient;
  const app: NestFastifyApplication = await createGatewayApp(
    GatewayModule.forRoot({ client, metrics: createMetricsRegistry(), readiness: [], apiKeyCacheMs: 0, ...options }),
    false,
    { trustedProxies },
  );
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, forwarded, fastify: app.getHttpAdapter().getInstance(), keyChecks: () => keyChecks };
}

describe('forwarding of public identity routes', () => {
  it.each([
    ['no trusted proxy: the socket peer, X-Forwarded-For ignored', [], '127.0.0.1', '203.0.113.9', '127.0.0.1'],
    ['a trusted proxy: the entry it added', ['127.0.0.1'], '127.0.0.1', '203.0.113.9', '203.0.113.9'],
    [
      'a chain of trusted proxies: the rightmost untrusted entry, never the client-chosen leftmost',
      ['127.0.0.1', '10.0.0.0/8'],
      '127.0.0.1',
      '198.51.100.1, 203.0.113.9, 10.1.2.3',
      '203.0.113.9',
    ],
    ['a peer that is not a trusted proxy: its own address', ['10.0.0.0/8'], '127.0.0.1', '203.0.113.9', '127.0.0.1'],
    ['IPv6 ranges', ['fd00::/8'], 'fd00::1', '2001:db8::7', '2001:db8::7'],
  ])('with %s, login carries the client address and validate the raw bearer token', async (_case, proxies, peer, forwardedFor, address) => {
    const { app, forwarded, fastify } = await gatewayRecording(proxies);
    try {
      const login = await fastify.inject({
        method: 'POST',
        url: '/v1/auth/login',
        headers: { 'x-forwarded-for': forwardedFor },
        payload: { username: 'u@example.com', password: 'p' },
        remoteAddress: peer,
      });
      expect(login.statusCode).toBe(200);
      const validate = await fastify.inject({ method: 'POST', url: '/v1/auth/validate', headers: { authorization: 'Bearer abc.def.ghi' }, payload: {} });
      expect(validate.statusCode).toBe(200);
      expect(forwarded.map((f) => f.subject)).toEqual([IdentitySubjects.login, IdentitySubjects.validate]);
      expect(forwarded[0].payload.body).toEqual({ query: {}, body: { username: 'u@example.com', password: 'p' }, sourceAddress: address });
      expect(forwarded[1].payload.body).toMatchObject({ bearerToken: 'abc.def.ghi' });
      expect(forwarded[1].payload.body).not.toHaveProperty('sourceAddress');
      // Public routes carry no caller.
      expect(forwarded[0].payload.context).toMatchObject({ accountId: '', userId: '', permissions: [] });
    } finally {
      await app.close();
    }
  });
});

describe('failed credential attempts per client address', () => {
  it('blocks failing attempts of an address after the limit (429 with Retry-After) while a valid credential from it still passes', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { app, fastify, keyChecks } = await gatewayRecording(['127.0.0.1'], { credentialFailures: { limit: 3, windowMs: 60_000 }, clock: () => now });
    const list = (from: string, headers: Record<string, string>) =>
      fastify.inject({ method: 'GET', url: '/v1/visitortag/list', headers: { 'x-forwarded-for': from, ...headers }, remoteAddress: '127.0.0.1' });
    try {
      expect((await list('203.0.113.9', { 'x-api-key': GOOD_KEY })).statusCode).toBe(200);
      expect((await list('203.0.113.5', { 'x-api-key': 'wrong-key-0000000000000' })).statusCode).toBe(401);
      expect((await list('203.0.113.5', { authorization: 'Bearer forged.token.here' })).statusCode).toBe(401);
      // No credential at all is no attempt.
      expect((await list('203.0.113.5', {})).statusCode).toBe(401);
      const blocking = await list('203.0.113.5', { 'x-api-key': 'wrong-key-0000000000001' });
      expect(blocking.statusCode).toBe(429);
      expect(blocking.headers['retry-after']).toBe('60');
      expect(blocking.json()).toMatchObject({ code: 'AUTH.TOO_MANY_ATTEMPTS', error: expect.stringContaining('try again later') });
      // A key seen valid is still checked and passes, however blocked its address is.
      expect((await list('203.0.113.5', { 'x-api-key': GOOD_KEY })).statusCode).toBe(200);
      // A key of the issued shape cannot be guessed: always checked, a valid one passes, a wrong one is a 429.
      expect((await list('203.0.113.5', { 'x-api-key': ISSUED_KEY })).statusCode).toBe(200);
      expect((await list('203.0.113.5', { 'x-api-key': 'fk_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' })).statusCode).toBe(429);
      // Other unknown keys are refused unchecked, except one per window / limit (20 s): guessing them stays that slow.
      const checks = keyChecks();
      for (let i = 0; i < 20; i++) expect((await list('203.0.113.5', { 'x-api-key': `wrong-key-1${i}` })).statusCode).toBe(429);
      expect(keyChecks() - checks).toBe(0);
      expect((await list('203.0.113.5', { 'x-api-key': BILLING_KEY })).statusCode).toBe(429);
      now += 20_000;
      // The due check: a valid key never seen before passes.
      const billing = await fastify.inject({
        method: 'GET',
        url: '/v1/billing/domains',
        headers: { 'x-forwarded-for': '203.0.113.5', 'x-api-key': BILLING_KEY },
        remoteAddress: '127.0.0.1',
      });
      expect(billing.statusCode).toBe(200);
      expect(keyChecks() - checks).toBe(1);
      // Another client behind the same proxy is not affected (another prefix: the one above is blocked too).
      expect((await list('203.0.113.6', { 'x-api-key': 'other-key-0000000000002' })).statusCode).toBe(401);
      // The block ends with its window.
      now += 40_000;
      expect((await list('203.0.113.5', { 'x-api-key': 'third-key-0000000000003' })).statusCode).toBe(401);
    } finally {
      await app.close();
    }
  });

  it('limits failed keys claiming one prefix across addresses, and all failures together, without refusing valid keys', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { app, fastify, keyChecks } = await gatewayRecording(['127.0.0.1'], {
      credentialFailures: { limit: 3, windowMs: 60_000, globalLimit: 8 },
      clock: () => now,
    });
    const list = (from: string, key: string) =>
      fastify.inject({ method: 'GET', url: '/v1/visitortag/list', headers: { 'x-forwarded-for': from, 'x-api-key': key }, remoteAddress: '127.0.0.1' });
    try {
      expect((await list('198.51.100.1', GOOD_KEY)).statusCode).toBe(200);
      // Guesses at GOOD_KEY's prefix, one per address: the prefix is blocked at the 3rd.
      expect((await list('198.51.100.2', 'good-kXXXXXXXXXXXXXXXXX1')).statusCode).toBe(401);
      expect((await list('198.51.100.3', 'good-kXXXXXXXXXXXXXXXXX2')).statusCode).toBe(401);
      expect((await list('198.51.100.4', 'good-kXXXXXXXXXXXXXXXXX3')).statusCode).toBe(429);
      let checks = keyChecks();
      expect((await list('198.51.100.5', 'good-kXXXXXXXXXXXXXXXXX4')).statusCode).toBe(429);
      expect(keyChecks()).toBe(checks);
      expect((await list('198.51.100.5', GOOD_KEY)).statusCode).toBe(200);
      // Other prefixes from fresh addresses until the global count (8) is reached.
      for (let i = 0; i < 4; i++) expect((await list(`192.0.2.${i}`, `other${i}-XXXXXXXXXXXXXXXX`)).statusCode).toBe(401);
      expect((await list('192.0.2.50', 'otherZ-XXXXXXXXXXXXXXXX')).statusCode).toBe(429);
      checks = keyChecks();
      for (let i = 0; i < 10; i++) expect((await list(`192.0.2.${100 + i}`, `fresh${i}-XXXXXXXXXXXXXXXX`)).statusCode).toBe(429);
      expect(keyChecks()).toBe(checks);
      expect((await list('192.0.2.200', GOOD_KEY)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('does not count expired tokens: clients renew them, nobody guesses them', async () => {
    const now = Date.UTC(2026, 0, 1);
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
    const seconds = now / 1000;
    const expired = await new SignJWT({ acc: 'A1', perms: ['assets:read'] })
      .setProtectedHeader({ alg: 'ES256', kid: 'k1', typ: ACCESS_TOKEN.type })
      .setIssuer(ACCESS_TOKEN.issuer)
      .setAudience(ACCESS_TOKEN.audience)
      .setSubject('U1')
      .setIssuedAt(seconds - 7200)
      .setExpirationTime(seconds - 3600)
      .sign(privateKey);
    const { app, fastify } = await gatewayRecording([], { credentialFailures: { limit: 2, windowMs: 60_000 }, clock: () => now }, [publicJwk]);
    try {
      for (let i = 0; i < 5; i++) {
        const res = await fastify.inject({ method: 'GET', url: '/v1/visitortag/list', headers: { authorization: `Bearer ${expired}` } });
        expect(res.statusCode).toBe(401);
        expect(res.json().error).toContain('expired');
      }
      expect((await fastify.inject({ method: 'GET', url: '/v1/visitortag/list', headers: { 'x-api-key': GOOD_KEY } })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });
});

describe('billing routes', () => {
  it('forward path parameters (decoded) and the Idempotency-Key header, and tell a fixed path from a pattern', async () => {
    const { app, forwarded, fastify } = await gatewayRecording([]);
    try {
      const headers = { 'x-api-key': BILLING_KEY, 'idempotency-key': 'k-1' };
      expect((await fastify.inject({ method: 'GET', url: '/v1/billing/domains/shop.example.com', headers })).statusCode).toBe(200);
      expect((await fastify.inject({ method: 'POST', url: '/v1/billing/domains/xn--mnchen-3ya.de/refresh/', headers, payload: {} })).statusCode).toBe(200);
      expect((await fastify.inject({ method: 'DELETE', url: '/v1/billing/domains/M%C3%BCnchen.de', headers })).statusCode).toBe(200);
      expect((await fastify.inject({ method: 'POST', url: '/v1/billing/domains/check', headers, payload: { domain: 'a.example.com' } })).statusCode).toBe(200);
      expect((await fastify.inject({ method: 'POST', url: '/v1/billing/addons', headers, payload: { addon_id: 'x', quantity: 1 } })).statusCode).toBe(200);
      expect(forwarded.map((f) => [f.subject, f.payload.body.params, f.payload.body.headers])).toEqual([
        [BillingSubjects.domainsGet, { domain: 'shop.example.com' }, undefined],
        [BillingSubjects.domainsRefresh, { domain: 'xn--mnchen-3ya.de' }, undefined],
        [BillingSubjects.domainsDelete, { domain: 'München.de' }, { 'idempotency-key': 'k-1' }],
        [BillingSubjects.domainsCheck, undefined, undefined],
        [BillingSubjects.addonsQuantity, undefined, { 'idempotency-key': 'k-1' }],
      ]);
    } finally {
      await app.close();
    }
  });

  it('answer every failure in the billing body shape, with the usual statuses', async () => {
    const { app, fastify } = await gatewayRecording([]);
    const call = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: string) =>
      fastify.inject({ method, url, headers: { 'content-type': 'application/json', ...headers }, ...(payload !== undefined ? { payload } : {}) });
    try {
      const noKey = await call('GET', '/v1/billing/domains', {});
      expect(noKey.statusCode).toBe(401);
      expect(noKey.json()).toEqual({ success: false, error_code: 'AUTH.UNAUTHORIZED', error_message: expect.any(String), details: [] });
      const forbidden = await call('GET', '/v1/billing/subscription', { 'x-api-key': GOOD_KEY });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toMatchObject({ success: false, error_code: 'AUTH.FORBIDDEN' });
      const missing = await call('GET', '/v1/billing/domains/missing.example.com', { 'x-api-key': BILLING_KEY });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ success: false, error_code: 'NOT_FOUND', error_message: 'no custom domain missing.example.com', details: [] });
      const badJson = await call('POST', '/v1/billing/domains', { 'x-api-key': BILLING_KEY }, '{"domain":');
      expect(badJson.statusCode).toBe(400);
      expect(badJson.json()).toMatchObject({ success: false, error_code: 'REQUEST.MALFORMED_JSON' });
      const broken = await call('GET', '/v1/billing/domains/broken.example.com', { 'x-api-key': BILLING_KEY });
      expect(broken.statusCode).toBe(500);
      expect(broken.json()).toEqual({
        success: false,
        error_code: 'INTERNAL',
        error_message: 'internal error',
        correlationId: broken.headers['x-correlation-id'],
      });
      // Other routes keep the standard body.
      expect((await call('GET', '/v1/visitortag/list', {})).json()).toMatchObject({ code: 'AUTH.UNAUTHORIZED', error: expect.any(String) });
    } finally {
      await app.close();
    }
  });
});
