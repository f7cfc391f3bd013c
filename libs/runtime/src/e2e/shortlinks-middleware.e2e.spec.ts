import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generateAssetId } from '@funnel/contracts';
import { COMMON_ROUTES, Deployment, describeInBothModes } from './harness';

// Issue 10's short links and middleware configs end to end, in standalone and distributed mode:
// every route, unique slugs (claimed in their own streams, raced by twenty creates) and write-only
// secrets (placeholders and flags on reads, kept / removed on saves, copied by duplicate, never
// stored or answered in clear).

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };
type Response = Awaited<ReturnType<Deployment['api']['call']>>;

const newId = () => generateAssetId();
const PLACEHOLDER = '********';

/** The common routes but the category ones (short links are not category-managed), and the slug lookup. */
const SHORT_LINK_ROUTES: [string, string][] = [
  ...COMMON_ROUTES.filter(([, path]) => path !== 'find/byCategory' && path !== 'move-category'),
  ['GET', 'find/bySlug'],
];

function ok(res: Response, what = ''): Response {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

const shortLink = (over: Body = {}) => ({
  idShortLink: newId(),
  shortLinkName: 'Spring sale',
  slug: `sale-${newId()}`,
  destinationUrl: 'https://shop.example.com/sale?utm_source=sl',
  ...over,
});

/** Secrets unique to one test run, so a scan that finds one found this test's. */
const secretsOf = () => ({ password: `pw-${newId()}-${newId()}`, hmacSecret: `hmac-${newId()}-${newId()}` });

const middlewareConfig = (secrets: { password?: string; hmacSecret?: string } = {}, over: Body = {}) => ({
  idMiddlewareConfig: newId(),
  middlewareConfigName: 'Fraud check',
  description: 'Scores the click',
  routes: [
    { idRoute: 'review', priority: 20 },
    { idRoute: 'fraud', priority: 10 },
  ],
  destination: {
    url: 'https://mw.example.com/score',
    headers: { 'X-Api-Version': '2' },
    basicAuth: { username: `svc-${newId()}`, password: secrets.password },
    hmacSecret: secrets.hmacSecret,
  },
  ...over,
});

/** Every file under `dir`, recursively (the event log, its WAL, the key file ...). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describeInBothModes('/v1 short links and middleware configs', (d) => {
  let me: Account;
  let other: Account;
  const call = (method: string, path: string, options: { body?: unknown; key?: string } = {}) => d().api.call(method, path, { key: me.apiKey, ...options });
  const asOther = (method: string, path: string, body?: unknown) => d().api.call(method, path, { key: other.apiKey, body });
  const save = async (prefix: string, body: Body) => {
    ok(await call('POST', `${prefix}/save/`, { body }), `POST ${prefix}/save/`);
    return body;
  };
  const link = (id: string) => call('GET', `/shortlink/find/byId/?idShortLink=${id}`);
  const bySlug = (slug: string) => call('GET', `/shortlink/find/bySlug/?slug=${encodeURIComponent(slug)}`);
  const config = (id: string) => call('GET', `/middlewareconfig/find/byId/?idMiddlewareConfig=${id}`);
  const category = async (categoryType = 'middlewareconfig') => {
    const body = { idCategory: newId(), categoryName: `Cat ${newId()}`, categoryType };
    await save('/category', body);
    return body;
  };

  beforeAll(async () => {
    [me, other] = await Promise.all([d().newAccount(`sl-${newId()}@example.com`), d().newAccount(`sl-other-${newId()}@example.com`)]);
  });

  describe('routes', () => {
    it('serves every route of both families, answers 401 to each without a key, and has no category routes for short links', async () => {
      const routes = [
        ...SHORT_LINK_ROUTES.map(([method, path]): [string, string] => [method, `/shortlink/${path}/`]),
        ...COMMON_ROUTES.map(([method, path]): [string, string] => [method, `/middlewareconfig/${path}/`]),
      ];
      for (const [method, path] of routes) {
        const anonymous = await call(method, path, { key: '', body: method === 'GET' ? undefined : {} });
        expect([method, path, anonymous.status]).toEqual([method, path, 401]);
        // With a key, the route exists: whatever is wrong with the empty request, it is not a 404 route.
        const served = await call(method, path, { body: method === 'GET' ? undefined : {} });
        expect([method, path, served.body?.code]).not.toEqual([method, path, 'REQUEST.ROUTE_NOT_FOUND']);
        expect([method, path, served.status]).not.toEqual([method, path, 401]);
      }
      for (const [method, path] of [
        ['GET', '/shortlink/find/byCategory/?idCategory='],
        ['PUT', '/shortlink/move-category/'],
      ]) {
        expect((await call(method, path, { body: method === 'GET' ? undefined : { entries: [], idCategory: '' } })).status).toBe(404);
      }
    });
  });

  describe('short links', () => {
    it('creates, reads (find/byId, find/byIds, find/bySlug, list, find/byStatus) and updates a link', async () => {
      const body = await save('/shortlink', shortLink({ meta: { color: 'teal' } }));
      const full = { ...body, redirectType: '302', status: 'active', owner: me.accountId };
      expect(ok(await link(body.idShortLink)).body).toEqual(full);
      expect(ok(await bySlug(body.slug)).body).toEqual(full);
      expect(ok(await call('GET', `/shortlink/find/byIds/?idShortLinks=${body.idShortLink},${newId()}`)).body).toEqual([full]);
      expect(ok(await call('GET', '/shortlink/list/?status=active')).body).toContainEqual(full);
      expect(ok(await call('GET', '/shortlink/find/byStatus/?status=all')).body).toContainEqual(full);
      expect((await call('GET', '/shortlink/list/')).status).toBe(400);

      const updated = { ...body, shortLinkName: 'Summer sale', destinationUrl: 'http://shop.example.com/summer', redirectType: '301' };
      ok(await call('PUT', '/shortlink/save/', { body: updated }));
      expect(ok(await link(body.idShortLink)).body).toEqual({ ...updated, status: 'active', owner: me.accountId });
      expect((await call('PUT', '/shortlink/save/', { body: shortLink() })).status).toBe(404);
      expect((await call('POST', '/shortlink/save/', { body: { ...body, slug: `x-${newId()}` } })).body.code).toBe('ASSET.ALREADY_EXISTS');
    });

    it('answers 404 from find/bySlug when no live link has the slug, and 400 without one', async () => {
      const res = await bySlug(`none-${newId()}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('ASSET.NOT_FOUND');
      expect((await call('GET', '/shortlink/find/bySlug/')).status).toBe(400);
    });

    it.each([
      ['a slug with a slash', { slug: 'a/b' }, 'slug'],
      ['a slug of 65 characters', { slug: 's'.repeat(65) }, 'slug'],
      ['a relative destination', { destinationUrl: '/sale' }, 'destinationUrl'],
      ['a javascript destination', { destinationUrl: 'javascript:alert(1)' }, 'destinationUrl'],
      ['a destination with credentials', { destinationUrl: 'https://a:b@shop.example.com/' }, 'destinationUrl'],
      ['a destination over 4096 characters', { destinationUrl: `https://shop.example.com/${'p'.repeat(4096)}` }, 'destinationUrl'],
      ['redirectType 308', { redirectType: '308' }, 'redirectType'],
      ['a missing name', { shortLinkName: undefined }, 'shortLinkName'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, over, field) => {
      const body = shortLink(over);
      const res = await call('POST', '/shortlink/save/', { body });
      expect(res.status).toBe(400);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
      expect((await link(body.idShortLink)).status).toBe(404);
    });

    it('refuses a slug another live link has (409 SHORTLINK.SLUG_TAKEN) on create and update; the same slug is free in another account', async () => {
      const first = await save('/shortlink', shortLink());
      const taken = await call('POST', '/shortlink/save/', { body: shortLink({ slug: first.slug }) });
      expect(taken.status).toBe(409);
      expect(taken.body).toMatchObject({ code: 'SHORTLINK.SLUG_TAKEN', details: [{ field: 'slug', code: 'unique' }] });

      const second = await save('/shortlink', shortLink());
      const renamed = await call('PUT', '/shortlink/save/', { body: { ...second, slug: first.slug } });
      expect(renamed.status).toBe(409);
      expect(renamed.body.code).toBe('SHORTLINK.SLUG_TAKEN');
      expect(ok(await link(second.idShortLink)).body.slug).toBe(second.slug);
      expect(ok(await bySlug(first.slug)).body.idShortLink).toBe(first.idShortLink);

      expect((await asOther('POST', '/shortlink/save/', shortLink({ slug: first.slug }))).status).toBe(200);
    });

    it('keeps the slug of an archived link, and releases the slug of a deleted one', async () => {
      const archived = await save('/shortlink', shortLink());
      ok(await call('PUT', '/shortlink/archive/', { body: { entries: [archived.idShortLink] } }));
      expect((await call('POST', '/shortlink/save/', { body: shortLink({ slug: archived.slug }) })).body.code).toBe('SHORTLINK.SLUG_TAKEN');
      expect(ok(await bySlug(archived.slug)).body).toMatchObject({ idShortLink: archived.idShortLink, status: 'archived' });
      ok(await call('PUT', '/shortlink/unarchive/', { body: { entries: [archived.idShortLink] } }));
      expect(ok(await link(archived.idShortLink)).body.status).toBe('active');

      ok(await call('DELETE', '/shortlink/delete/', { body: { entries: [archived.idShortLink] } }));
      expect((await bySlug(archived.slug)).status).toBe(404);
      const successor = await save('/shortlink', shortLink({ slug: archived.slug }));
      expect(ok(await bySlug(archived.slug)).body.idShortLink).toBe(successor.idShortLink);
      // The legacy single-id delete releases it too.
      ok(await call('DELETE', `/shortlink/delete/?idShortLink=${successor.idShortLink}`));
      await save('/shortlink', shortLink({ slug: archived.slug }));
    });

    it("frees a link's old slug when an update changes it", async () => {
      const body = await save('/shortlink', shortLink());
      const newSlug = `moved-${newId()}`;
      ok(await call('PUT', '/shortlink/save/', { body: { ...body, slug: newSlug } }));
      expect((await bySlug(body.slug)).status).toBe(404);
      const taker = await save('/shortlink', shortLink({ slug: body.slug }));
      expect(ok(await bySlug(body.slug)).body.idShortLink).toBe(taker.idShortLink);
      expect((await call('POST', '/shortlink/save/', { body: shortLink({ slug: newSlug }) })).body.code).toBe('SHORTLINK.SLUG_TAKEN');
      // Saving a link again with its own slug is no conflict.
      ok(await call('PUT', '/shortlink/save/', { body: { ...body, slug: newSlug, shortLinkName: 'Renamed' } }));
    });

    it('keeps the slug of a link when a create with its id is refused', async () => {
      const body = await save('/shortlink', shortLink());
      expect((await call('POST', '/shortlink/save/', { body })).body.code).toBe('ASSET.ALREADY_EXISTS');
      const intruder = await call('POST', '/shortlink/save/', { body: shortLink({ slug: body.slug }) });
      expect(intruder.status).toBe(409);
      expect(intruder.body.code).toBe('SHORTLINK.SLUG_TAKEN');
      expect(ok(await bySlug(body.slug)).body.idShortLink).toBe(body.idShortLink);
    });

    it('gives a duplicate bodyUpdates.slug, else the source slug plus "-" and 5 random characters (cut to fit 64)', async () => {
      const source = await save('/shortlink', shortLink({ redirectType: '307' }));
      const copy = ok(await call('POST', `/shortlink/duplicate/?idShortLink=${source.idShortLink}`, { body: { name: 'Copy' } })).body;
      const copied = ok(await link(copy.id)).body;
      expect(copied).toEqual({ ...source, idShortLink: copy.id, shortLinkName: 'Copy', slug: expect.any(String), status: 'active', owner: me.accountId });
      expect(copied.slug).toMatch(new RegExp(`^${source.slug}-[0-9A-Za-z]{5}$`));

      const chosen = `chosen-${newId()}`;
      const second = ok(
        await call('POST', `/shortlink/duplicate/?idShortLink=${source.idShortLink}`, { body: { name: 'Copy 2', bodyUpdates: { slug: chosen } } }),
      ).body;
      expect(ok(await bySlug(chosen)).body.idShortLink).toBe(second.id);
      const clash = await call('POST', `/shortlink/duplicate/?idShortLink=${source.idShortLink}`, { body: { name: 'Copy 3', bodyUpdates: { slug: chosen } } });
      expect(clash.status).toBe(409);
      expect(clash.body.code).toBe('SHORTLINK.SLUG_TAKEN');

      const longest = await save('/shortlink', shortLink({ slug: `${newId()}${'s'.repeat(52)}` }));
      const longCopy = ok(await call('POST', `/shortlink/duplicate/?idShortLink=${longest.idShortLink}`, { body: { name: 'Long copy' } })).body;
      const longSlug = ok(await link(longCopy.id)).body.slug;
      expect(longSlug).toHaveLength(64);
      expect(longSlug).toMatch(new RegExp(`^${longest.slug.slice(0, 58)}-[0-9A-Za-z]{5}$`));
    });

    it('gives exactly one of twenty concurrent creates with one slug a 200, and the nineteen others a 409', async () => {
      const slug = `race-${newId()}`;
      const bodies = Array.from({ length: 20 }, () => shortLink({ slug }));
      const answers = await Promise.all(bodies.map((body) => call('POST', '/shortlink/save/', { body })));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(19);
      for (const res of answers.filter((r) => r.status === 409)) expect(res.body.code).toBe('SHORTLINK.SLUG_TAKEN');
      const winner = bodies[statuses.indexOf(200)];
      expect(ok(await bySlug(slug)).body.idShortLink).toBe(winner.idShortLink);
      const holders = ok(await call('GET', '/shortlink/list/?status=all')).body.filter((l: Body) => l.slug === slug);
      expect(holders.map((l: Body) => l.idShortLink)).toEqual([winner.idShortLink]);
    });

    it('gives exactly one of ten concurrent updates to one slug a 200', async () => {
      const slug = `race-${newId()}`;
      const links = await Promise.all(Array.from({ length: 10 }, () => save('/shortlink', shortLink())));
      const answers = await Promise.all(links.map((body) => call('PUT', '/shortlink/save/', { body: { ...body, slug } })));
      const statuses = answers.map((res) => res.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(9);
      const winner = links[statuses.indexOf(200)];
      expect(ok(await bySlug(slug)).body.idShortLink).toBe(winner.idShortLink);
      // The losers kept their slugs.
      for (const [i, body] of links.entries()) if (i !== statuses.indexOf(200)) expect(ok(await link(body.idShortLink)).body.slug).toBe(body.slug);
    });

    it('keeps accounts apart: another account gets 404s', async () => {
      const mine = await save('/shortlink', shortLink());
      expect((await asOther('GET', `/shortlink/find/byId/?idShortLink=${mine.idShortLink}`)).status).toBe(404);
      expect((await asOther('GET', `/shortlink/find/bySlug/?slug=${mine.slug}`)).status).toBe(404);
      expect(ok(await asOther('GET', `/shortlink/find/byIds/?idShortLinks=${mine.idShortLink}`)).body).toEqual([]);
      expect((await asOther('PUT', '/shortlink/save/', { ...mine, shortLinkName: 'stolen' })).status).toBe(404);
      expect((await asOther('POST', `/shortlink/duplicate/?idShortLink=${mine.idShortLink}`, { name: 'x' })).status).toBe(404);
      expect((await asOther('PUT', '/shortlink/archive/', { entries: [mine.idShortLink] })).status).toBe(404);
      expect((await asOther('PUT', '/shortlink/unarchive/', { entries: [mine.idShortLink] })).status).toBe(404);
      expect((await asOther('DELETE', '/shortlink/delete/', { entries: [mine.idShortLink] })).status).toBe(404);
      expect(ok(await link(mine.idShortLink)).body).toMatchObject({ shortLinkName: mine.shortLinkName, status: 'active' });
    });
  });

  describe('middleware configs', () => {
    const slimOf = (full: Body) => ({
      idMiddlewareConfig: full.idMiddlewareConfig,
      middlewareConfigName: full.middlewareConfigName,
      status: full.status,
      idCategory: full.idCategory,
      categoryName: full.categoryName,
      destinationType: full.destination.type,
      destinationMethod: full.destination.method,
    });

    it('stores the default route, defaults and schemaVersion; answers full records on finds and slim ones on list and find/byStatus', async () => {
      const cat = await category();
      const body = await save('/middlewareconfig', middlewareConfig(secretsOf(), { idCategory: cat.idCategory }));
      const full = ok(await config(body.idMiddlewareConfig)).body;
      expect(full).toEqual({
        ...body,
        routes: [
          { idRoute: 'default', priority: 0, isDefault: true },
          { idRoute: 'fraud', priority: 10, isDefault: false },
          { idRoute: 'review', priority: 20, isDefault: false },
        ],
        destination: {
          type: 'http',
          method: 'POST',
          url: body.destination.url,
          timeoutMs: 5000,
          headers: { 'X-Api-Version': '2' },
          basicAuth: { username: body.destination.basicAuth.username, password: PLACEHOLDER },
          hmacSecret: PLACEHOLDER,
        },
        hasBasicAuthPassword: true,
        hasHmacSecret: true,
        schemaVersion: 1,
        status: 'active',
        categoryName: cat.categoryName,
        owner: me.accountId,
      });
      const slim = slimOf(full);
      expect(Object.keys(ok(await call('GET', '/middlewareconfig/list/')).body[0]).sort()).toEqual(Object.keys(slim).sort());
      expect(ok(await call('GET', '/middlewareconfig/list/')).body).toContainEqual(slim);
      expect(ok(await call('GET', `/middlewareconfig/list/?status=active&idCategory=${cat.idCategory}`)).body).toEqual([slim]);
      expect(ok(await call('GET', '/middlewareconfig/find/byStatus/?status=active')).body).toContainEqual(slim);
      expect(ok(await call('GET', `/middlewareconfig/find/byIds/?idMiddlewareConfigs=${body.idMiddlewareConfig}`)).body).toEqual([full]);
      expect(ok(await call('GET', `/middlewareconfig/find/byCategory/?idCategory=${cat.idCategory}`)).body).toEqual([full]);
    });

    it('lists non-deleted configs without status or with status empty or not-deleted, and deleted ones with status=all', async () => {
      const cat = await category();
      const [kept, archived, deleted] = await Promise.all([1, 2, 3].map(() => save('/middlewareconfig', middlewareConfig({}, { idCategory: cat.idCategory }))));
      ok(await call('PUT', '/middlewareconfig/archive/', { body: { entries: [archived.idMiddlewareConfig] } }));
      ok(await call('DELETE', '/middlewareconfig/delete/', { body: { entries: [deleted.idMiddlewareConfig] } }));
      const ids = async (query: string) =>
        ok(await call('GET', `/middlewareconfig/list/?idCategory=${cat.idCategory}${query}`)).body.map((c: Body) => c.idMiddlewareConfig);
      const live = [kept.idMiddlewareConfig, archived.idMiddlewareConfig].sort();
      expect(await ids('')).toEqual(live);
      expect(await ids('&status=')).toEqual(live);
      expect(await ids('&status=not-deleted')).toEqual(live);
      expect(await ids('&status=archived')).toEqual([archived.idMiddlewareConfig]);
      expect(await ids('&status=all')).toEqual([...live, deleted.idMiddlewareConfig].sort());
      expect((await call('GET', '/middlewareconfig/list/?status=paused')).status).toBe(400);
      expect((await config(deleted.idMiddlewareConfig)).status).toBe(404);
      ok(await call('PUT', '/middlewareconfig/unarchive/', { body: { entries: [archived.idMiddlewareConfig] } }));
      expect(ok(await config(archived.idMiddlewareConfig)).body.status).toBe('active');
    });

    it('updates, duplicates and moves between middlewareconfig categories; another category type is a 400', async () => {
      const [first, second] = [await category(), await category()];
      const body = await save('/middlewareconfig', middlewareConfig({}, { idCategory: first.idCategory }));
      ok(
        await call('PUT', '/middlewareconfig/save/', {
          body: { ...body, middlewareConfigName: 'Renamed', destination: { ...body.destination, method: 'GET', timeoutMs: 250 } },
        }),
      );
      const updated = ok(await config(body.idMiddlewareConfig)).body;
      expect(updated).toMatchObject({ middlewareConfigName: 'Renamed', idCategory: first.idCategory, destination: { method: 'GET', timeoutMs: 250 } });

      const copy = ok(
        await call('POST', `/middlewareconfig/duplicate/?idMiddlewareConfig=${body.idMiddlewareConfig}`, {
          body: { name: 'Copy', parentId: second.idCategory },
        }),
      ).body;
      expect(ok(await config(copy.id)).body).toEqual({
        ...updated,
        idMiddlewareConfig: copy.id,
        middlewareConfigName: 'Copy',
        idCategory: second.idCategory,
        categoryName: second.categoryName,
      });

      ok(await call('PUT', '/middlewareconfig/move-category/', { body: { entries: [body.idMiddlewareConfig], idCategory: second.idCategory } }));
      expect(ok(await config(body.idMiddlewareConfig)).body.categoryName).toBe(second.categoryName);
      const wrong = await category('condition');
      expect(
        (await call('PUT', '/middlewareconfig/move-category/', { body: { entries: [body.idMiddlewareConfig], idCategory: wrong.idCategory } })).status,
      ).toBe(400);
      expect((await call('POST', '/middlewareconfig/save/', { body: middlewareConfig({}, { idCategory: wrong.idCategory }) })).status).toBe(400);
      expect((await call('PUT', '/middlewareconfig/save/', { body: middlewareConfig() })).status).toBe(404);
    });

    it.each([
      ['two default routes', { routes: [{ idRoute: 'default' }, { idRoute: 'x', isDefault: true }] }, 'routes[1].isDefault'],
      [
        'a repeated route id',
        {
          routes: [
            { idRoute: 'a', priority: 1 },
            { idRoute: 'a', priority: 2 },
          ],
        },
        'routes[1].idRoute',
      ],
      ['a route key with uppercase', { routes: [{ idRoute: 'Fraud', priority: 1 }] }, 'routes[0].idRoute'],
      ['priority 256', { routes: [{ idRoute: 'a', priority: 256 }] }, 'routes.0.priority'],
      ['65 routes', { routes: Array.from({ length: 65 }, (_, i) => ({ idRoute: `r${i}`, priority: i + 1 })) }, 'routes'],
      ['method PUT', { destination: { url: 'https://mw.example.com/', method: 'PUT' } }, 'destination.method'],
      ['a relative URL', { destination: { url: '/score' } }, 'destination.url'],
      ['timeout 10001', { destination: { url: 'https://mw.example.com/', timeoutMs: 10_001 } }, 'destination.timeoutMs'],
      ['a header with CR LF', { destination: { url: 'https://mw.example.com/', headers: { 'X-A': 'a\r\nB: c' } } }, 'destination.headers.X-A'],
      [
        '51 headers',
        { destination: { url: 'https://mw.example.com/', headers: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`X-${i}`, ''])) } },
        'destination.headers',
      ],
      ['a 15-character HMAC secret', { destination: { url: 'https://mw.example.com/', hmacSecret: 'fifteen-chars-x' } }, 'destination.hmacSecret'],
    ])('refuses %s with a 400 naming the field, and stores nothing', async (_what, over, field) => {
      const body = middlewareConfig({}, over);
      const res = await call('POST', '/middlewareconfig/save/', { body });
      expect(res.status).toBe(400);
      expect(res.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
      expect(res.text).not.toContain('fifteen-chars-x');
      expect((await config(body.idMiddlewareConfig)).status).toBe(404);
    });

    it('names header faults with the codes webhook config headers use, never echoing a value', async () => {
      const headers = { 'X-A': 'secret-'.repeat(200), 'x-a': 'w', 'X-N': 5, ...Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`X-${i}`, ''])) };
      const res = await call('POST', '/middlewareconfig/save/', { body: middlewareConfig({}, { destination: { url: 'https://mw.example.com/', headers } }) });
      const codes = res.body.details.map((detail: { field: string; code: string }) => [detail.field, detail.code]);
      expect(codes).toEqual(
        expect.arrayContaining([
          ['destination.headers', 'maxEntries'],
          ['destination.headers.X-A', 'maxLength'],
          ['destination.headers.x-a', 'unique'],
          ['destination.headers.X-N', 'isString'],
        ]),
      );
      expect(res.text).not.toContain('secret-');
    });

    it('keeps secrets write-only: a save with them omitted or as ******** keeps them, null or "" removes them, a read-modify-write keeps them', async () => {
      const body = await save('/middlewareconfig', middlewareConfig(secretsOf()));
      const id = body.idMiddlewareConfig;
      const flags = async () => {
        const full = ok(await config(id)).body;
        return {
          password: full.destination.basicAuth?.password,
          hmacSecret: full.destination.hmacSecret,
          hasBasicAuthPassword: full.hasBasicAuthPassword,
          hasHmacSecret: full.hasHmacSecret,
        };
      };
      const stored = { password: PLACEHOLDER, hmacSecret: PLACEHOLDER, hasBasicAuthPassword: true, hasHmacSecret: true };
      expect(await flags()).toEqual(stored);

      // A read, one change, the same record saved back.
      const read = ok(await config(id)).body;
      ok(await call('PUT', '/middlewareconfig/save/', { body: { ...read, middlewareConfigName: 'Edited' } }));
      expect(await flags()).toEqual(stored);
      // Omitted.
      const { hmacSecret: _h, ...withoutHmac } = body.destination;
      ok(await call('PUT', '/middlewareconfig/save/', { body: { ...body, destination: { ...withoutHmac, basicAuth: { username: 'svc' } } } }));
      expect(await flags()).toEqual(stored);
      // null removes one, "" the other.
      ok(
        await call('PUT', '/middlewareconfig/save/', {
          body: { ...body, destination: { ...body.destination, basicAuth: { username: 'svc', password: null } } },
        }),
      );
      expect(await flags()).toEqual({ ...stored, password: undefined, hasBasicAuthPassword: false });
      ok(await call('PUT', '/middlewareconfig/save/', { body: { ...body, destination: { ...withoutHmac, basicAuth: { username: 'svc' }, hmacSecret: '' } } }));
      expect(await flags()).toEqual({ password: undefined, hmacSecret: undefined, hasBasicAuthPassword: false, hasHmacSecret: false });
      // New values, then basicAuth removed as a whole.
      ok(
        await call('PUT', '/middlewareconfig/save/', {
          body: { ...body, destination: { ...body.destination, basicAuth: { username: 'svc', password: 'new-password' }, hmacSecret: 'a-new-hmac-secret-16' } },
        }),
      );
      expect(await flags()).toEqual(stored);
      ok(await call('PUT', '/middlewareconfig/save/', { body: { ...body, destination: { ...withoutHmac, basicAuth: null } } }));
      const noAuth = ok(await config(id)).body;
      expect(noAuth.destination).not.toHaveProperty('basicAuth');
      expect(noAuth).toMatchObject({ hasBasicAuthPassword: false, hasHmacSecret: true, destination: { hmacSecret: PLACEHOLDER } });
    });

    it('copies secrets to a duplicate, and a bodyUpdates destination can replace them', async () => {
      const body = await save('/middlewareconfig', middlewareConfig(secretsOf()));
      const copy = ok(await call('POST', `/middlewareconfig/duplicate/?idMiddlewareConfig=${body.idMiddlewareConfig}`, { body: { name: 'Copy' } })).body;
      expect(ok(await config(copy.id)).body).toMatchObject({ hasBasicAuthPassword: true, hasHmacSecret: true, destination: { hmacSecret: PLACEHOLDER } });
      // The copy holds the same encrypted values as its source.
      const log = new Database(join(d().dataDir, 'events.sqlite'), { readonly: true });
      try {
        const lastRecord = (id: string) => {
          const rows = log
            .prepare('SELECT data FROM events WHERE stream_name = ? ORDER BY revision')
            .pluck()
            .all(`middlewareconfig-${me.accountId}.${id}`) as string[];
          return JSON.parse(rows[rows.length - 1]).record;
        };
        const [source, copied] = [lastRecord(body.idMiddlewareConfig), lastRecord(copy.id)];
        expect(copied.destination.basicAuth.password).toEqual(source.destination.basicAuth.password);
        expect(copied.destination.hmacSecret).toEqual(source.destination.hmacSecret);
        expect(source.destination.hmacSecret).toMatchObject({ $secret: 'aes-256-gcm' });
      } finally {
        log.close();
      }
      const replaced = ok(
        await call('POST', `/middlewareconfig/duplicate/?idMiddlewareConfig=${body.idMiddlewareConfig}`, {
          body: { name: 'Copy 2', bodyUpdates: { destination: { url: 'https://other.example.com/', hmacSecret: null } } },
        }),
      ).body;
      expect(ok(await config(replaced.id)).body).toMatchObject({
        hasBasicAuthPassword: false,
        hasHmacSecret: false,
        destination: { url: 'https://other.example.com/' },
      });
    });

    it('never keeps or answers a secret in clear: not in the event log files under DATA_DIR, not in any read', async () => {
      const cat = await category();
      const secrets = [secretsOf(), secretsOf()];
      const first = await save('/middlewareconfig', middlewareConfig(secrets[0], { idCategory: cat.idCategory }));
      const second = await save('/middlewareconfig', middlewareConfig({}, { idCategory: cat.idCategory }));
      // Secrets set by an update and by a duplicate's bodyUpdates too.
      ok(
        await call('PUT', '/middlewareconfig/save/', {
          body: { ...second, destination: { ...second.destination, basicAuth: { username: 'u', password: secrets[1].password } } },
        }),
      );
      const copy = ok(
        await call('POST', `/middlewareconfig/duplicate/?idMiddlewareConfig=${first.idMiddlewareConfig}`, {
          body: { name: 'Copy', bodyUpdates: { destination: { ...first.destination, hmacSecret: secrets[1].hmacSecret } } },
        }),
      ).body;
      const clear = secrets.flatMap((s) => [s.password, s.hmacSecret]);

      const files = filesUnder(d().dataDir);
      expect(files.map((f) => f.slice(d().dataDir.length))).toContain('/events.sqlite');
      const raw = files.map((file) => readFileSync(file));
      // The scan sees the configs' events (the basic-auth user name is stored in clear) ...
      expect(raw.some((bytes) => bytes.includes(first.destination.basicAuth.username))).toBe(true);
      // ... and none of the secrets, neither in the files' bytes nor in any event the log answers.
      for (const secret of clear) expect(raw.filter((bytes) => bytes.includes(secret))).toEqual([]);
      const log = new Database(join(d().dataDir, 'events.sqlite'), { readonly: true });
      try {
        const events = log.prepare('SELECT stream_name || type || data || metadata FROM events').pluck().all() as string[];
        expect(events.some((text) => text.includes(first.destination.basicAuth.username))).toBe(true);
        for (const secret of clear) expect(events.filter((text) => text.includes(secret))).toEqual([]);
      } finally {
        log.close();
      }

      const reads = [
        await config(first.idMiddlewareConfig),
        await config(copy.id),
        await call('GET', `/middlewareconfig/find/byIds/?idMiddlewareConfigs=${first.idMiddlewareConfig},${second.idMiddlewareConfig},${copy.id}`),
        await call('GET', `/middlewareconfig/find/byCategory/?idCategory=${cat.idCategory}`),
        await call('GET', '/middlewareconfig/list/?status=all'),
        await call('GET', '/middlewareconfig/find/byStatus/?status=all'),
      ];
      for (const res of reads) {
        ok(res);
        for (const secret of clear) expect(res.text).not.toContain(secret);
        // Nor the encrypted form: reads show the placeholder only.
        expect(res.text).not.toContain('aes-256-gcm');
      }
      expect(ok(reads[3]).body).toHaveLength(3);
    });

    it('keeps accounts apart: another account gets 404s', async () => {
      const mine = await save('/middlewareconfig', middlewareConfig(secretsOf()));
      const id = mine.idMiddlewareConfig;
      expect((await asOther('GET', `/middlewareconfig/find/byId/?idMiddlewareConfig=${id}`)).status).toBe(404);
      expect(ok(await asOther('GET', `/middlewareconfig/find/byIds/?idMiddlewareConfigs=${id}`)).body).toEqual([]);
      expect(ok(await asOther('GET', '/middlewareconfig/list/?status=all')).body).toEqual([]);
      expect((await asOther('PUT', '/middlewareconfig/save/', { ...mine, middlewareConfigName: 'stolen' })).status).toBe(404);
      expect((await asOther('POST', `/middlewareconfig/duplicate/?idMiddlewareConfig=${id}`, { name: 'x' })).status).toBe(404);
      expect((await asOther('PUT', '/middlewareconfig/archive/', { entries: [id] })).status).toBe(404);
      expect((await asOther('PUT', '/middlewareconfig/unarchive/', { entries: [id] })).status).toBe(404);
      expect((await asOther('PUT', '/middlewareconfig/move-category/', { entries: [id], idCategory: '' })).status).toBe(404);
      expect((await asOther('DELETE', '/middlewareconfig/delete/', { entries: [id] })).status).toBe(404);
      expect(ok(await config(id)).body).toMatchObject({ middlewareConfigName: mine.middlewareConfigName, status: 'active', hasHmacSecret: true });
      // The same id is free in another account.
      expect((await asOther('POST', '/middlewareconfig/save/', middlewareConfig({}, { idMiddlewareConfig: id }))).status).toBe(200);
    });
  });
});
