import { generateAssetId } from '@funnel/contracts';
import { apiKeyDigest } from '@funnel/identity-domain';
import { ADMIN, Deployment, describeInBothModes } from './harness';

/**
 * Integration API keys over HTTP. The harness trusts a verified key for API_KEY_CACHE_MS = 1000 ms;
 * revocations must still take effect on the very next request, so each such test uses the key just
 * before changing it (it is cached then) and right after.
 */
describeInBothModes('/v1/apikeys', (d) => {
  const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
  const generate = async (name: string, permissions: string[], key?: string) => {
    const res = await call('POST', '/apikeys/generate/', { body: { name, permissions }, key });
    expect(res.status).toBe(200);
    return res.body as { id: string; key: string; name: string; prefix: string; permissions: string[] };
  };
  const list = async (key?: string) => {
    const res = await call('GET', '/apikeys/list/', { key });
    expect(res.status).toBe(200);
    return res.body as { id: string; name: string; prefix: string; permissions: string[]; enabled: boolean; createdAt: string; lastUsedAt: string | null }[];
  };
  const saveTag = (key: string) => call('POST', '/visitortag/save/', { body: { idTag: generateAssetId(), tagName: 'Buyers' }, key });
  const readTags = (key: string) => call('GET', '/visitortag/list/', { key });

  it('generates a key, shown once, that works at once; lists show it without the key or its digest', async () => {
    const res = await call('POST', '/apikeys/generate', { body: { name: 'Zapier', permissions: ['assets:read', 'assets:write'] } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      key: expect.stringMatching(/^fk_/),
      name: 'Zapier',
      prefix: res.body.key.slice(0, 6),
      permissions: ['assets:read', 'assets:write'],
      enabled: true,
      createdAt: expect.any(String),
      lastUsedAt: null,
      userId: expect.any(String),
    });
    const { key, id } = res.body;
    expect((await readTags(key)).status).toBe(200);
    expect((await saveTag(key)).status).toBe(200);

    const listing = await call('GET', '/apikeys/list');
    expect(listing.status).toBe(200);
    expect(Array.isArray(listing.body)).toBe(true);
    const entry = listing.body.find((k: { id: string }) => k.id === id);
    expect(entry).toEqual({
      id,
      name: 'Zapier',
      prefix: key.slice(0, 6),
      permissions: ['assets:read', 'assets:write'],
      enabled: true,
      createdAt: res.body.createdAt,
      lastUsedAt: expect.any(String),
      userId: res.body.userId,
    });
    expect(Date.parse(entry.createdAt)).toBeLessThanOrEqual(Date.parse(entry.lastUsedAt));
    expect(listing.text).not.toContain(key);
    expect(listing.text).not.toContain(apiKeyDigest(key));
    expect(listing.text).not.toContain(apiKeyDigest(ADMIN.apiKey));
    // The id is random, not a part of the key's digest.
    expect(apiKeyDigest(key)).not.toContain(id);
    // The bootstrap key is listed too, under its own prefix.
    expect(listing.body.map((k: { prefix: string }) => k.prefix)).toContain(ADMIN.apiKey.slice(0, 6));
  });

  it('renames and changes permissions; a narrowed key loses the permission on its very next request', async () => {
    const { key, id } = await generate('writer', ['assets:read', 'assets:write']);
    expect((await saveTag(key)).status).toBe(200);
    const renamed = await call('PUT', '/apikeys/update/', { body: { id, name: 'reader', permissions: ['assets:read'] } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'reader', permissions: ['assets:read'], enabled: true });
    expect(renamed.text).not.toContain(key);
    const refused = await saveTag(key);
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('AUTH.FORBIDDEN');
    expect((await readTags(key)).status).toBe(200);
    expect((await list()).find((k) => k.id === id)).toMatchObject({ name: 'reader', permissions: ['assets:read'] });
  });

  it('a disabled key gets 401 on its very next request, and works again once enabled', async () => {
    const { key, id } = await generate('to disable', ['assets:read']);
    expect((await readTags(key)).status).toBe(200);
    const disabled = await call('PUT', '/apikeys/update', { body: { id, enabled: false } });
    expect(disabled.status).toBe(200);
    expect(disabled.body.enabled).toBe(false);
    const refused = await readTags(key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('AUTH.UNAUTHORIZED');
    expect((await list()).find((k) => k.id === id)?.enabled).toBe(false);
    expect((await call('PUT', '/apikeys/update', { body: { id, enabled: true } })).status).toBe(200);
    expect((await readTags(key)).status).toBe(200);
  });

  it('a deleted key gets 401 on its very next request and leaves the list', async () => {
    const { key, id } = await generate('to delete', ['assets:read']);
    expect((await readTags(key)).status).toBe(200);
    const deleted = await call('DELETE', '/apikeys/delete/', { body: { entries: [id] } });
    expect(deleted.status).toBe(200);
    expect(deleted.text).toBe('');
    expect((await readTags(key)).status).toBe(401);
    expect((await list()).map((k) => k.id)).not.toContain(id);
    const again = await call('DELETE', '/apikeys/delete/', { body: { entries: [id] } });
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('APIKEY.NOT_FOUND');
  });

  it('a key without keys:manage gets 403 on every /apikeys route', async () => {
    const { key, id } = await generate('no keys', ['assets:read', 'assets:write']);
    for (const [method, path, body] of [
      ['GET', '/apikeys/list/', undefined],
      ['POST', '/apikeys/generate/', { name: 'x', permissions: [] }],
      ['PUT', '/apikeys/update/', { id, name: 'x' }],
      ['DELETE', '/apikeys/delete/', { entries: [id] }],
    ] as const) {
      const res = await call(method, path, { body, key });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
    }
    expect((await list()).find((k) => k.id === id)?.name).toBe('no keys');
  });

  it('a key manager cannot grant a permission it lacks (403), and can grant what it holds', async () => {
    const manager = await generate('manager', ['keys:manage', 'assets:read']);
    const before = (await list()).length;
    const refused = await call('POST', '/apikeys/generate/', { body: { name: 'stronger', permissions: ['assets:read', 'assets:write'] }, key: manager.key });
    expect(refused.status).toBe(403);
    const own = await generate('own', ['assets:read'], manager.key);
    const widen = await call('PUT', '/apikeys/update/', { body: { id: own.id, permissions: ['billing:manage'] }, key: manager.key });
    expect(widen.status).toBe(403);
    expect((await list()).length).toBe(before + 1);
    expect((await list(manager.key)).find((k) => k.id === own.id)?.permissions).toEqual(['assets:read']);
  });

  it('a key manager cannot update, disable or delete a key holding a permission it lacks (403), and the key keeps working', async () => {
    const manager = await generate('manager', ['keys:manage', 'assets:read']);
    const stronger = await generate('stronger', ['assets:read', 'assets:write']);
    for (const change of [{ name: 'taken over' }, { enabled: false }, { permissions: ['assets:read'] }]) {
      const refused = await call('PUT', '/apikeys/update/', { body: { id: stronger.id, ...change }, key: manager.key });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('AUTH.FORBIDDEN');
    }
    expect((await call('DELETE', '/apikeys/delete/', { body: { entries: [stronger.id] }, key: manager.key })).status).toBe(403);
    expect((await saveTag(stronger.key)).status).toBe(200);
    expect((await list()).find((k) => k.id === stronger.id)).toMatchObject({ name: 'stronger', enabled: true, permissions: ['assets:read', 'assets:write'] });
    // The admin, who holds every permission, still can.
    expect((await call('DELETE', '/apikeys/delete/', { body: { entries: [stronger.id] } })).status).toBe(200);
  });

  it('answers 400 to bad bodies and stores nothing', async () => {
    const before = await list();
    const { id } = before[0];
    const cases: [string, string, unknown][] = [
      ['POST', '/apikeys/generate/', { permissions: [] }],
      ['POST', '/apikeys/generate/', { name: 'x' }],
      ['POST', '/apikeys/generate/', { name: '', permissions: [] }],
      ['POST', '/apikeys/generate/', { name: 'x'.repeat(257), permissions: [] }],
      ['POST', '/apikeys/generate/', { name: 'x', permissions: ['assets:read', 'superuser'] }],
      ['POST', '/apikeys/generate/', { name: 'x', permissions: 'assets:read' }],
      ['POST', '/apikeys/generate/', []],
      ['PUT', '/apikeys/update/', { name: 'no id' }],
      ['PUT', '/apikeys/update/', { id: 'not-a-key-id', name: 'x' }],
      ['PUT', '/apikeys/update/', { id, enabled: 'yes' }],
      ['PUT', '/apikeys/update/', { id, permissions: ['nope'] }],
      ['DELETE', '/apikeys/delete/', { entries: [] }],
      ['DELETE', '/apikeys/delete/', { entries: 'x' }],
      ['DELETE', '/apikeys/delete/', {}],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(method, path, { body });
      expect({ body, status: res.status, code: res.body?.code }).toEqual({ body, status: 400, code: 'REQUEST.VALIDATION_FAILED' });
    }
    const malformed = await call('POST', '/apikeys/generate/', { rawBody: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect((await list()).map(({ lastUsedAt: _l, ...k }) => k)).toEqual(before.map(({ lastUsedAt: _l, ...k }) => k));
  });

  it('keeps accounts apart: another account does not see, update or delete the keys (404)', async () => {
    const mine = await generate('mine', ['assets:read']);
    const other = await d().newAccount(`other-${d().mode}@example.com`);
    const theirs = await call('GET', '/apikeys/list/', { key: other.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((k: { id: string }) => k.id)).not.toContain(mine.id);
    expect(theirs.body).toHaveLength(1);
    for (const [method, path, body] of [
      ['PUT', '/apikeys/update/', { id: mine.id, enabled: false }],
      ['DELETE', '/apikeys/delete/', { entries: [mine.id] }],
    ] as const) {
      const res = await call(method, path, { body, key: other.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('APIKEY.NOT_FOUND');
    }
    expect((await readTags(mine.key)).status).toBe(200);
    expect((await list()).find((k) => k.id === mine.id)).toMatchObject({ enabled: true, name: 'mine' });
  });
});
