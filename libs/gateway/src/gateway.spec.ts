import { HttpException } from '@nestjs/common';
import { IdentityEvents, ServiceError } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';
import { RouteTable, assetRoutes } from './route-table';
import { billingRoutes } from './billing-routes';
import { shapeErrorAnswer, toHttpError } from './http-errors';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { requirePermission } from './credentials';

describe('RouteTable', () => {
  const table = new RouteTable(assetRoutes());
  it('matches with and without the trailing slash', () => {
    expect(table.match('GET', '/visitortag/find/byId/')).toMatchObject({ subject: 'assets.visitortag.findById', permission: 'assets:read' });
    expect(table.match('GET', '/visitortag/find/byId')).toMatchObject({ subject: 'assets.visitortag.findById' });
  });
  it('tells POST save (create) from PUT save (update)', () => {
    expect(table.match('POST', '/category/save')).toMatchObject({ subject: 'assets.category.create', permission: 'assets:write' });
    expect(table.match('PUT', '/category/save/')).toMatchObject({ subject: 'assets.category.update' });
  });
  it('knows a path served with another method, and unknown paths', () => {
    expect(table.match('PATCH', '/category/save')).toBe('method-not-allowed');
    expect(table.match('GET', '/nope')).toBeUndefined();
  });
  it('serves only the operations a kind has (categories have no move-category)', () => {
    expect(table.match('PUT', '/category/move-category')).toBeUndefined();
    expect(table.match('PUT', '/visitortag/move-category')).toMatchObject({ subject: 'assets.visitortag.moveCategory' });
  });
  it('serves page groups under both prefixes, and conditions with their dry run (a read)', () => {
    for (const prefix of ['/page/group', '/pagegroup']) {
      expect(table.match('GET', `${prefix}/find/byType/`)).toMatchObject({ subject: 'assets.pagegroup.findByType', permission: 'assets:read' });
      expect(table.match('PUT', `${prefix}/move-category/`)).toMatchObject({ subject: 'assets.pagegroup.moveCategory', permission: 'assets:write' });
    }
    expect(table.match('POST', '/condition/save/')).toMatchObject({ subject: 'assets.condition.create', permission: 'assets:write' });
    expect(table.match('POST', '/condition/evaluate/')).toMatchObject({ subject: 'assets.condition.evaluate', permission: 'assets:read' });
    expect(table.match('GET', '/page/find/byType/')).toBeUndefined();
  });
});

describe('RouteTable with path parameters', () => {
  const table = new RouteTable(billingRoutes());
  it('matches a parameter segment, decoded, and prefers a fixed path', () => {
    expect(table.resolve('GET', '/billing/domains/shop.example.com/')).toMatchObject({
      route: { subject: 'billing.domains.get' },
      params: { domain: 'shop.example.com' },
    });
    expect(table.resolve('POST', '/billing/domains/M%C3%BCnchen.de/refresh')).toMatchObject({ params: { domain: 'München.de' } });
    expect(table.resolve('POST', '/billing/domains/check')).toMatchObject({ route: { subject: 'billing.domains.check' }, params: {} });
    expect(table.resolve('GET', '/billing/domains/check')).toMatchObject({ route: { subject: 'billing.domains.get' }, params: { domain: 'check' } });
    expect(table.match('DELETE', '/billing/domains')).toBe('method-not-allowed');
    expect(table.match('PUT', '/billing/domains/x.example.com')).toBe('method-not-allowed');
    expect(table.match('GET', '/billing/domains/%E0%A4%A')).toBeUndefined();
    expect(table.match('GET', '/billing/domains//refresh')).toBeUndefined();
    expect(table.match('POST', '/billing/addons')).toMatchObject({ subject: 'billing.addons.quantity' });
  });
});

describe('toHttpError', () => {
  it('shapes an answer as the billing body when the route asks for it', () => {
    const answer = toHttpError(ServiceError.tooManyRequests('slow down', 12, 'RATE_LIMITED'), 'c1');
    expect(shapeErrorAnswer(answer, 'billing')).toEqual({
      status: 429,
      headers: { 'retry-after': '12' },
      body: { success: false, error_code: 'RATE_LIMITED', error_message: 'slow down', details: [] },
    });
    expect(shapeErrorAnswer(answer, 'standard')).toBe(answer);
  });

  it('maps service errors to their status and the error body', () => {
    const details = [{ field: 'idTag', code: 'exists', message: 'idTag exists' }];
    expect(toHttpError(ServiceError.conflict('ASSET.ALREADY_EXISTS', 'exists', details), 'c1')).toEqual({
      status: 409,
      body: { error: 'exists', code: 'ASSET.ALREADY_EXISTS', details },
    });
    expect(toHttpError({ status: 503, code: 'SERVICE.UNAVAILABLE', message: 'down' }, 'c1')).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
  });
  it('answers a 500 with only a correlation id', () => {
    expect(toHttpError(new Error('secret internals'), 'corr-1')).toEqual({ status: 500, body: { correlationId: 'corr-1' } });
    expect(toHttpError(ServiceError.internal('from-service'), 'corr-2')).toEqual({ status: 500, body: { correlationId: 'from-service' } });
  });
  it('maps Fastify rejections (bad JSON, too large)', () => {
    expect(toHttpError({ statusCode: 400, code: 'FST_ERR_CTP_INVALID_JSON_BODY', message: 'Body is not valid JSON' }, 'c').body.code).toBe(
      'REQUEST.MALFORMED_JSON',
    );
    expect(toHttpError({ statusCode: 413, code: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'too large' }, 'c')).toMatchObject({
      status: 413,
      body: { code: 'REQUEST.BODY_TOO_LARGE' },
    });
    expect(toHttpError(new HttpException('Not Found', 404), 'c')).toMatchObject({ status: 404, body: { code: 'REQUEST.ROUTE_NOT_FOUND' } });
  });
});

describe('ApiKeyAuthenticator', () => {
  const principal = { accountId: 'A', userId: 'U', permissions: ['assets:read'] };
  function client(answer: () => unknown) {
    const calls: unknown[] = [];
    const subscribers = new Map<string, (data: unknown) => void>();
    const c: ServiceClient = {
      request: async <T>(_subject: string, payload: unknown) => {
        calls.push(payload);
        const a = answer();
        if (a instanceof Error) throw a;
        return a as T;
      },
      subscribe: (subject, handler) => {
        subscribers.set(subject, handler);
        return () => subscribers.delete(subject);
      },
      close: async () => undefined,
    };
    const publish = (subject: string, data: unknown) => subscribers.get(subject)?.(data);
    return { c, calls, subscribers, publish };
  }
  it('remembers a verified key for cacheMs, then asks again', async () => {
    let now = 1000;
    const { c, calls } = client(() => principal);
    const auth = new ApiKeyAuthenticator(c, 2000, () => now);
    expect(await auth.authenticate('k'.repeat(20), 'x')).toEqual(principal);
    await auth.authenticate('k'.repeat(20), 'x');
    expect(calls).toHaveLength(1);
    now += 2001;
    await auth.authenticate('k'.repeat(20), 'x');
    expect(calls).toHaveLength(2);
  });
  it('forgets a key at once when identity publishes its revocation, and only that key', async () => {
    const keyed = (keyId: string) => ({ ...principal, keyId });
    const answers: Record<string, unknown> = { ['a'.repeat(20)]: keyed('K1'), ['b'.repeat(20)]: keyed('K2') };
    let asked = '';
    const { c, calls, publish } = client(() => answers[asked]);
    const auth = new ApiKeyAuthenticator(c, 5000);
    const authenticate = (key: string) => {
      asked = key;
      return auth.authenticate(key, 'x');
    };
    await authenticate('a'.repeat(20));
    await authenticate('b'.repeat(20));
    expect(calls).toHaveLength(2);
    answers['a'.repeat(20)] = ServiceError.unauthorized();
    publish(IdentityEvents.apiKeysRevoked, { keyIds: ['K1'] });
    await expect(authenticate('a'.repeat(20))).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(3);
    await authenticate('b'.repeat(20));
    expect(calls).toHaveLength(3);
  });
  it('does not cache an answer that was under way when a revocation arrived', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls: unknown[] = [];
    const subscribers: ((data: unknown) => void)[] = [];
    const c: ServiceClient = {
      request: async <T>(_subject: string, payload: unknown) => {
        calls.push(payload);
        if (calls.length === 1) await gate;
        return { ...principal, keyId: 'K1' } as T;
      },
      subscribe: (_subject, handler) => {
        subscribers.push(handler);
        return () => undefined;
      },
      close: async () => undefined,
    };
    const auth = new ApiKeyAuthenticator(c, 5000);
    const first = auth.authenticate('k'.repeat(20), 'x');
    await new Promise((resolve) => setImmediate(resolve));
    subscribers.forEach((handler) => handler({ keyIds: ['K1'] }));
    release();
    await first;
    await auth.authenticate('k'.repeat(20), 'x');
    expect(calls).toHaveLength(2);
  });
  it('unsubscribes when the module is destroyed, and ignores malformed events', () => {
    const { c, subscribers, publish } = client(() => principal);
    const auth = new ApiKeyAuthenticator(c, 1000);
    expect(subscribers.has(IdentityEvents.apiKeysRevoked)).toBe(true);
    expect(() => publish(IdentityEvents.apiKeysRevoked, null)).not.toThrow();
    expect(() => publish(IdentityEvents.apiKeysRevoked, { keyIds: 'K1' })).not.toThrow();
    auth.onModuleDestroy();
    expect(subscribers.size).toBe(0);
  });
  it('does not remember refusals', async () => {
    const { c, calls } = client(() => ServiceError.unauthorized());
    const auth = new ApiKeyAuthenticator(c, 2000);
    await expect(auth.authenticate('bad-key-bad-key-bad', 'x')).rejects.toMatchObject({ status: 401 });
    await expect(auth.authenticate('bad-key-bad-key-bad', 'x')).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(2);
  });
});

describe('requirePermission', () => {
  it('answers 403 when the credential lacks the route permission', () => {
    const principal = { accountId: 'A', userId: 'U', permissions: ['assets:read'] };
    expect(() => requirePermission(principal, 'assets:read')).not.toThrow();
    let error: unknown;
    try {
      requirePermission(principal, 'assets:write');
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ status: 403, code: 'AUTH.FORBIDDEN' });
  });

  it('takes reporting:write for reporting:read (a writer may read reports), never the other way round', () => {
    const writer = { accountId: 'A', userId: 'U', permissions: ['reporting:write'] };
    expect(() => requirePermission(writer, 'reporting:read')).not.toThrow();
    const reader = { accountId: 'A', userId: 'U', permissions: ['reporting:read'] };
    expect(() => requirePermission(reader, 'reporting:write')).toThrow(expect.objectContaining({ status: 403 }));
    const assets = { accountId: 'A', userId: 'U', permissions: ['assets:read', 'assets:write'] };
    expect(() => requirePermission(assets, 'reporting:read')).toThrow(
      expect.objectContaining({ status: 403, message: expect.stringContaining('reporting:read') }),
    );
  });
});
