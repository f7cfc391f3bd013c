import { generateAssetId } from '@funnel/contracts';
import { ADMIN, Deployment, describeInBothModes, distributedDeployment } from './harness';

const newId = () => generateAssetId();
const tag = (over: Record<string, unknown> = {}) => ({ idTag: newId(), tagName: 'Buyers', color: '#ff0000', ...over });
const category = (over: Record<string, unknown> = {}) => ({ idCategory: newId(), categoryName: 'Tags A', categoryType: 'visitorTag', ...over });

describeInBothModes('/v1 assets', (d) => {
  const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(...args);
  const createTag = async (over: Record<string, unknown> = {}) => {
    const body = tag(over);
    const res = await call('POST', '/visitortag/save/', { body });
    expect(res.status).toBe(200);
    return body;
  };
  const createCategory = async (over: Record<string, unknown> = {}) => {
    const body = category(over);
    const res = await call('POST', '/category/save/', { body });
    expect(res.status).toBe(200);
    return body;
  };
  const getTag = async (id: string) => call('GET', `/visitortag/find/byId/?idTag=${id}`);

  describe('authentication', () => {
    it('answers 401 without a key, with a wrong key, and accepts the key as query parameter or header', async () => {
      expect((await call('GET', '/visitortag/list/', { key: '' })).status).toBe(401);
      const wrong = await call('GET', '/visitortag/list/', { key: 'not-the-right-key-123456' });
      expect(wrong.status).toBe(401);
      expect(wrong.body).toMatchObject({ code: 'AUTH.UNAUTHORIZED' });
      expect((await call('GET', `/visitortag/list/?key=${encodeURIComponent(ADMIN.apiKey)}`, { key: '' })).status).toBe(200);
      expect((await call('GET', '/visitortag/list/')).status).toBe(200);
    });
  });

  describe('ids', () => {
    it('generates ids in the documented format', async () => {
      const res = await call('GET', '/ids/generate?count=5');
      expect(res.status).toBe(200);
      expect(res.body.ids).toHaveLength(5);
      for (const id of res.body.ids) expect(id).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(new Set(res.body.ids).size).toBe(5);
      expect((await call('GET', '/ids/generate')).body.ids).toHaveLength(1);
    });
    it.each(['0', '1001', 'abc', '2.5'])('rejects count=%s', async (count) => {
      expect((await call('GET', `/ids/generate?count=${count}`)).status).toBe(400);
    });
    it('requires a key', async () => expect((await call('GET', '/ids/generate', { key: '' })).status).toBe(401));
  });

  describe('visitor tags', () => {
    it('creates, finds (with and without trailing slash) and shows categoryName', async () => {
      const body = await createTag({ tagType: 'segment', tagValue: 'vip' });
      const found = await getTag(body.idTag);
      expect(found.status).toBe(200);
      expect(found.body).toEqual({ ...body, status: 'active', idCategory: '', categoryName: '', owner: expect.any(String) });
      expect((await call('GET', `/visitortag/find/byId?idTag=${body.idTag}`)).body).toEqual(found.body);
    });

    it('refuses to create an id that exists (409) and keeps the first', async () => {
      const body = await createTag();
      const again = await call('POST', '/visitortag/save/', { body: { ...body, tagName: 'other' } });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('ASSET.ALREADY_EXISTS');
      expect((await getTag(body.idTag)).body.tagName).toBe('Buyers');
    });

    it.each([
      ['a short id', { idTag: 'abc' }, /12 characters/],
      ['a long id', { idTag: 'ABCDEFGHIJKLM' }, /12 characters/],
      ['an id outside base62', { idTag: 'ABCDEFGHIJ-_' }, /0-9, A-Z, a-z/],
      ['a missing name', { tagName: undefined }, /tagName/],
      ['an empty name', { tagName: '' }, /tagName/],
      ['a 257-character name', { tagName: 'x'.repeat(257) }, /tagName/],
      ['a name of the wrong type', { tagName: 42 }, /tagName/],
      ['an unknown status', { status: 'paused' }, /status/],
      ['status deleted', { status: 'deleted' }, /deleted/],
      ['a malformed category id', { idCategory: 'nope' }, /idCategory/],
      ['a category that does not exist', { idCategory: 'ZZZZZZZZZZZZ' }, /category/],
    ])('rejects %s with a 400 and stores nothing', async (_what, over, message) => {
      const body = tag(over);
      const res = await call('POST', '/visitortag/save/', { body });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(message);
      expect(res.body.code).toMatch(/^REQUEST\./);
      expect(Array.isArray(res.body.details)).toBe(true);
      if (typeof body.idTag === 'string' && /^[0-9A-Za-z]{12}$/.test(body.idTag)) expect((await getTag(body.idTag)).status).toBe(404);
    });

    it('answers 400 to malformed JSON, a non-object body, and 413 to a body over 1 MiB', async () => {
      const bad = await call('POST', '/visitortag/save/', { rawBody: '{"idTag": ' });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'REQUEST.MALFORMED_JSON' });
      expect((await call('POST', '/visitortag/save/', { body: [1, 2] })).status).toBe(400);
      const huge = await call('POST', '/visitortag/save/', { body: tag({ tagValue: 'x'.repeat(1024 * 1024 + 10) }) });
      expect(huge.status).toBe(413);
      expect(huge.body.code).toBe('REQUEST.BODY_TOO_LARGE');
    });

    it('updates with PUT; a PUT for an unknown id is a 404', async () => {
      const body = await createTag();
      expect((await call('PUT', '/visitortag/save/', { body: { ...body, tagName: 'Renamed', color: 'blue' } })).status).toBe(200);
      expect((await getTag(body.idTag)).body).toMatchObject({ tagName: 'Renamed', color: 'blue' });
      const missing = await call('PUT', '/visitortag/save/', { body: tag() });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('ASSET.NOT_FOUND');
    });

    it('lists non-deleted tags, filters by category and by status', async () => {
      const cat = await createCategory();
      const inCat = await createTag({ idCategory: cat.idCategory });
      const archived = await createTag();
      const deleted = await createTag();
      await call('PUT', '/visitortag/archive/', { body: { entries: [archived.idTag] } });
      await call('DELETE', '/visitortag/delete/', { body: { entries: [deleted.idTag] } });
      const ids = (res: { body: { idTag: string }[] }) => res.body.map((t) => t.idTag);
      const list = await call('GET', '/visitortag/list/');
      expect(ids(list)).toEqual(expect.arrayContaining([inCat.idTag, archived.idTag]));
      expect(ids(list)).not.toContain(deleted.idTag);
      const inCategory = await call('GET', `/visitortag/list/?idCategory=${cat.idCategory}`);
      expect(inCategory.body).toEqual([{ ...inCat, status: 'active', categoryName: cat.categoryName, owner: expect.any(String) }]);
      expect(ids(await call('GET', '/visitortag/find/byStatus/?status=archived'))).toContain(archived.idTag);
      expect(ids(await call('GET', '/visitortag/find/byStatus/?status=active'))).not.toContain(archived.idTag);
      expect(ids(await call('GET', '/visitortag/find/byStatus/?status=not-deleted'))).not.toContain(deleted.idTag);
      const all = await call('GET', '/visitortag/find/byStatus/?status=all');
      expect(all.body.find((t: { idTag: string }) => t.idTag === deleted.idTag)?.status).toBe('deleted');
      expect(ids(await call('GET', `/visitortag/find/byStatus/?status=active&idCategory=${cat.idCategory}`))).toEqual([inCat.idTag]);
      expect((await call('GET', '/visitortag/find/byStatus/')).status).toBe(400);
      expect((await call('GET', '/visitortag/find/byStatus/?status=gone')).status).toBe(400);
    });

    it('finds by ids (comma-separated), leaving out unknown ones', async () => {
      const a = await createTag();
      const b = await createTag();
      const res = await call('GET', `/visitortag/find/byIds/?idTags=${b.idTag},${a.idTag},${newId()}`);
      expect(res.body.map((t: { idTag: string }) => t.idTag)).toEqual([b.idTag, a.idTag]);
    });

    it("duplicates with bodyUpdates; id, owner and status stay the service's", async () => {
      const source = await createTag({ tagValue: 'v1' });
      await call('PUT', '/visitortag/archive/', { body: { entries: [source.idTag] } });
      const res = await call('POST', `/visitortag/duplicate/?idTag=${source.idTag}`, {
        body: { name: 'Copy', bodyUpdates: { tagValue: 'v2', idTag: 'AAAAAAAAAAAA', status: 'deleted', owner: 'someone' } },
      });
      expect(res.status).toBe(200);
      expect(res.body.id).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(res.body.id).not.toBe('AAAAAAAAAAAA');
      const copy = await getTag(res.body.id);
      const { owner } = (await getTag(source.idTag)).body;
      expect(owner).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(copy.body).toEqual({ ...source, idTag: res.body.id, tagName: 'Copy', tagValue: 'v2', status: 'active', idCategory: '', categoryName: '', owner });
      expect((await call('POST', `/visitortag/duplicate/?idTag=${newId()}`, { body: { name: 'x' } })).status).toBe(404);
      expect((await call('POST', `/visitortag/duplicate/?idTag=${source.idTag}`, { body: { name: '' } })).status).toBe(400);
      expect((await call('POST', `/visitortag/duplicate/?idTag=${source.idTag}`, { body: { name: 'x', bodyUpdates: { tagName: 5 } } })).status).toBe(400);
    });

    it('archives, unarchives and deletes softly', async () => {
      const t = await createTag();
      expect((await call('PUT', '/visitortag/archive/', { body: { entries: [t.idTag] } })).status).toBe(200);
      expect((await getTag(t.idTag)).body.status).toBe('archived');
      expect((await call('PUT', '/visitortag/unarchive/', { body: { entries: [t.idTag] } })).status).toBe(200);
      expect((await getTag(t.idTag)).body.status).toBe('active');
      expect((await call('DELETE', '/visitortag/delete/', { body: { entries: [t.idTag] } })).status).toBe(200);
      expect((await getTag(t.idTag)).status).toBe(404);
      expect((await call('PUT', '/visitortag/archive/', { body: { entries: [newId()] } })).status).toBe(404);
      expect((await call('PUT', '/visitortag/archive/', { body: { entries: ['bad'] } })).status).toBe(400);
    });

    it('moves to a category and back to uncategorized; categoryName follows renames', async () => {
      const cat = await createCategory({ categoryName: 'Before' });
      const t = await createTag();
      expect((await call('PUT', '/visitortag/move-category/', { body: { entries: [t.idTag], idCategory: cat.idCategory } })).status).toBe(200);
      expect((await getTag(t.idTag)).body).toMatchObject({ idCategory: cat.idCategory, categoryName: 'Before' });
      await call('PUT', '/category/save/', { body: { ...cat, categoryName: 'After' } });
      expect((await getTag(t.idTag)).body.categoryName).toBe('After');
      const other = await createCategory({ categoryType: 'lander' });
      expect((await call('PUT', '/visitortag/move-category/', { body: { entries: [t.idTag], idCategory: other.idCategory } })).status).toBe(400);
      expect((await call('PUT', '/visitortag/move-category/', { body: { entries: [t.idTag], idCategory: '' } })).status).toBe(200);
      expect((await getTag(t.idTag)).body).toMatchObject({ idCategory: '', categoryName: '' });
    });
  });

  describe('categories', () => {
    const getCategory = (id: string) => call('GET', `/category/find/byId/?idCategory=${id}`);
    const children = async (cat: { idCategory: string }, n = 2) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await createTag({ idCategory: cat.idCategory }));
      return out;
    };
    const tagState = async (id: string) => {
      const all = await call('GET', '/visitortag/find/byStatus/?status=all');
      return all.body.find((t: { idTag: string }) => t.idTag === id);
    };

    it('saves, finds, lists by status and type, and refuses a categoryType change', async () => {
      const c = await createCategory({ categoryType: 'offer' });
      expect((await getCategory(c.idCategory)).body).toEqual({ ...c, status: 'active', owner: expect.any(String) });
      const list = await call('GET', '/category/list/?status=active&categoryType=offer');
      expect(list.body.map((x: { idCategory: string }) => x.idCategory)).toContain(c.idCategory);
      expect((await call('GET', '/category/list/?status=active&categoryType=lander')).body.map((x: { idCategory: string }) => x.idCategory)).not.toContain(
        c.idCategory,
      );
      expect((await call('GET', '/category/list/?status=active')).status).toBe(400);
      expect((await call('GET', '/category/list/?categoryType=offer')).status).toBe(400);
      expect((await call('GET', '/category/list/?status=active&categoryType=nope')).status).toBe(400);
      expect((await call('PUT', '/category/save/', { body: { ...c, categoryType: 'lander' } })).status).toBe(400);
      expect((await call('PUT', '/category/save/', { body: category() })).status).toBe(404);
      expect((await call('POST', '/category/save/', { body: { ...c } })).status).toBe(409);
      expect((await call('POST', '/category/save/', { body: category({ categoryType: 'bogus' }) })).status).toBe(400);
      const byIds = await call('GET', `/category/find/byIds/?idCategories=${c.idCategory}`);
      expect(byIds.body).toEqual([{ ...c, status: 'active', owner: expect.any(String) }]);
      const dup = await call('POST', `/category/duplicate/?idCategory=${c.idCategory}`, { body: { name: 'Copy' } });
      expect((await getCategory(dup.body.id)).body).toEqual({
        ...c,
        idCategory: dup.body.id,
        categoryName: 'Copy',
        status: 'active',
        owner: expect.any(String),
      });
    });

    it('delete with no option moves children to uncategorized first', async () => {
      const c = await createCategory();
      const [a, b] = await children(c);
      expect((await call('DELETE', '/category/delete/', { body: { entries: [c.idCategory] } })).status).toBe(200);
      expect((await getCategory(c.idCategory)).status).toBe(404);
      for (const t of [a, b]) expect(await tagState(t.idTag)).toMatchObject({ status: 'active', idCategory: '' });
      const all = await call('GET', '/category/list/?status=all&categoryType=visitorTag');
      expect(all.body.find((x: { idCategory: string }) => x.idCategory === c.idCategory)?.status).toBe('deleted');
    });

    it('delete with cascade deletes the children', async () => {
      const c = await createCategory();
      const [a] = await children(c, 1);
      expect((await call('DELETE', '/category/delete/', { body: { entries: [c.idCategory], cascadeAction: 'cascade' } })).status).toBe(200);
      expect(await tagState(a.idTag)).toMatchObject({ status: 'deleted' });
    });

    it('delete with move reassigns children to a category of the same type', async () => {
      const c = await createCategory();
      const target = await createCategory({ categoryName: 'Target' });
      const [a] = await children(c, 1);
      expect(
        (await call('DELETE', '/category/delete/', { body: { entries: [c.idCategory], cascadeAction: 'move', targetParentID: target.idCategory } })).status,
      ).toBe(200);
      expect(await tagState(a.idTag)).toMatchObject({ status: 'active', idCategory: target.idCategory, categoryName: 'Target' });
    });

    it('rejects bad cascade requests and changes nothing', async () => {
      const c = await createCategory();
      const [a] = await children(c, 1);
      const lander = await createCategory({ categoryType: 'lander' });
      const cases: [unknown, number][] = [
        [{ entries: [c.idCategory], cascadeAction: 'move' }, 400],
        [{ entries: [c.idCategory], cascadeAction: 'cascade', targetParentID: lander.idCategory }, 400],
        [{ entries: [c.idCategory], targetParentID: lander.idCategory }, 400],
        [{ entries: [c.idCategory], cascadeAction: 'move', targetParentID: lander.idCategory }, 400],
        [{ entries: [c.idCategory], cascadeAction: 'move', targetParentID: c.idCategory }, 400],
        [{ entries: [c.idCategory], cascadeAction: 'move', targetParentID: newId() }, 404],
        [{ entries: [c.idCategory], cascadeAction: 'explode' }, 400],
        [{ entries: [] }, 400],
      ];
      for (const [body, status] of cases) {
        expect({ body, status: (await call('DELETE', '/category/delete/', { body })).status }).toEqual({ body, status });
        expect({ body, status: (await call('PUT', '/category/archive/', { body })).status }).toEqual({ body, status });
      }
      expect((await getCategory(c.idCategory)).body.status).toBe('active');
      expect(await tagState(a.idTag)).toMatchObject({ status: 'active', idCategory: c.idCategory });
    });

    it('archive with no option leaves children; cascade archives them; orphan detaches them; unarchive restores', async () => {
      const c1 = await createCategory();
      const [a] = await children(c1, 1);
      await call('PUT', '/category/archive/', { body: { entries: [c1.idCategory] } });
      expect((await getCategory(c1.idCategory)).body.status).toBe('archived');
      expect(await tagState(a.idTag)).toMatchObject({ status: 'active', idCategory: c1.idCategory });
      await call('PUT', '/category/unarchive/', { body: { entries: [c1.idCategory] } });
      expect((await getCategory(c1.idCategory)).body.status).toBe('active');

      await call('PUT', '/category/archive/', { body: { entries: [c1.idCategory], cascadeAction: 'cascade' } });
      expect(await tagState(a.idTag)).toMatchObject({ status: 'archived', idCategory: c1.idCategory });

      const c2 = await createCategory();
      const [b] = await children(c2, 1);
      await call('PUT', '/category/archive/', { body: { entries: [c2.idCategory], cascadeAction: 'orphan' } });
      expect(await tagState(b.idTag)).toMatchObject({ status: 'active', idCategory: '' });
    });

    it('delete keeps the legacy single-id query fallback', async () => {
      const c = await createCategory();
      expect((await call('DELETE', `/category/delete/?idCategory=${c.idCategory}`)).status).toBe(200);
      expect((await getCategory(c.idCategory)).status).toBe(404);
    });
  });

  describe('accounts', () => {
    it('isolates accounts: another account cannot read, list, change or duplicate', async () => {
      const mine = await createTag();
      const other = await d().newAccount(`other-${newId()}@example.com`);
      const as = { key: other.apiKey };
      expect((await call('GET', `/visitortag/find/byId/?idTag=${mine.idTag}`, as)).status).toBe(404);
      expect((await call('GET', '/visitortag/list/', as)).body).toEqual([]);
      expect((await call('PUT', '/visitortag/save/', { ...as, body: { ...mine, tagName: 'stolen' } })).status).toBe(404);
      expect((await call('PUT', '/visitortag/archive/', { ...as, body: { entries: [mine.idTag] } })).status).toBe(404);
      expect((await call('POST', `/visitortag/duplicate/?idTag=${mine.idTag}`, { ...as, body: { name: 'x' } })).status).toBe(404);
      // The same id is free in another account.
      expect((await call('POST', '/visitortag/save/', { ...as, body: { ...mine, tagName: 'theirs' } })).status).toBe(200);
      expect((await getTag(mine.idTag)).body.tagName).toBe('Buyers');
    });
  });

  describe('consistency', () => {
    it('a save answered 200 is visible to the very next find', async () => {
      for (let i = 0; i < 20; i++) {
        const body = await createTag({ tagName: `rw-${i}` });
        expect((await getTag(body.idTag)).body.tagName).toBe(`rw-${i}`);
        await call('PUT', '/visitortag/save/', { body: { ...body, tagName: `rw-${i}-b` } });
        expect((await getTag(body.idTag)).body.tagName).toBe(`rw-${i}-b`);
      }
    });

    // The exact one-wins-one-409 interleaving is forced in asset-commands.int.spec.ts; over HTTP the
    // requests may or may not overlap, so this checks the invariants that hold either way.
    it('racing updates answer 200 or 409, and the stored name is one that was acknowledged', async () => {
      const body = await createTag();
      const names = Array.from({ length: 20 }, (_, i) => `racer-${i}`);
      const results = await Promise.all(names.map((tagName) => call('PUT', '/visitortag/save/', { body: { ...body, tagName } })));
      const statuses = results.map((r) => r.status);
      expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
      const winners = names.filter((_, i) => statuses[i] === 200);
      expect(winners.length).toBeGreaterThanOrEqual(1);
      expect(winners).toContain((await getTag(body.idTag)).body.tagName);
      for (const r of results.filter((x) => x.status === 409)) expect(r.body.code).toBe('ASSET.CONCURRENT_MODIFICATION');
    });
  });

  describe('durability', () => {
    it('keeps data across a restart (read models rebuilt from the log)', async () => {
      const cat = await createCategory({ categoryName: 'Durable' });
      const t = await createTag({ idCategory: cat.idCategory });
      await d().stop();
      await d().restart();
      expect((await getTag(t.idTag)).body).toMatchObject({ tagName: 'Buyers', categoryName: 'Durable' });
      // The bootstrap admin key still works after the restart (idempotence: identity-feature.int.spec.ts).
      expect((await call('GET', '/visitortag/list/')).status).toBe(200);
    });
  });

  describe('errors', () => {
    it('answers 404 with the error body for an unknown route', async () => {
      const res = await call('GET', '/nothing/here/');
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ code: 'REQUEST.ROUTE_NOT_FOUND' });
    });
  });
});

describe('/v1 in distributed mode when a service is down', () => {
  let d: Deployment;
  beforeAll(async () => {
    d = await distributedDeployment();
  });
  afterAll(async () => {
    await d?.cleanup();
  });

  it('answers 503 with Retry-After within 5 s instead of hanging', async () => {
    expect((await d.api.call('GET', '/visitortag/list/')).status).toBe(200);
    await d.stopService!('assets');
    const started = Date.now();
    const res = await d.api.call('GET', '/visitortag/list/');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('SERVICE.UNAVAILABLE');
    // A client knows when to try again: a restarted service answers within seconds.
    expect(res.headers.get('retry-after')).toBe('5');
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
