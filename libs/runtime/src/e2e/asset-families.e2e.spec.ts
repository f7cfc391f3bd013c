import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { generateAssetId } from '@funnel/contracts';
import { COMMON_ROUTES, Deployment, describeInBothModes } from './harness';

// Issue 9's asset families end to end: traffic sources, offer sources, pages, page groups (under both
// prefixes) and conditions, on the generic asset pipeline, in standalone and distributed mode.

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };
type Response = Awaited<ReturnType<Deployment['api']['call']>>;

const newId = () => generateAssetId();

const ALL_ROUTES: [string, string][] = [
  ...['/trafficsource', '/offersource', '/page', '/page/group', '/pagegroup', '/condition'].flatMap((prefix) =>
    COMMON_ROUTES.map(([method, path]): [string, string] => [method, `${prefix}/${path}/`]),
  ),
  ['GET', '/page/group/find/byType/'],
  ['GET', '/pagegroup/find/byType/'],
  ['POST', '/condition/evaluate/'],
];

const US_MOBILE_ROUTE = {
  idRoute: 'us_mobile',
  routeName: 'US mobile',
  ruleGroups: [
    {
      rules: [
        { attribute: 'country', operator: 'is', values: ['US', 'CA'] },
        // Fields a rule does not have are dropped when it is stored.
        { attribute: 'deviceType', operator: 'is', values: ['mobile'], extra: 'dropped' },
      ],
    },
  ],
};
const NIGHT_ROUTE = {
  idRoute: 'night',
  routeName: 'Night',
  ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'gte', values: ['22'] }] }, { rules: [{ attribute: 'hour', operator: 'lt', values: ['6'] }] }],
};
const normalizedRoutes = [
  {
    idRoute: 'us_mobile',
    routeName: 'US mobile',
    ruleGroups: [
      {
        rules: [
          { attribute: 'country', operator: 'is', values: ['US', 'CA'] },
          { attribute: 'deviceType', operator: 'is', values: ['mobile'] },
        ],
      },
    ],
  },
  NIGHT_ROUTE,
];

/** What one family looks like to these tests: how to make a record, and its full and slim shapes. */
interface Family {
  title: string;
  prefix: string;
  idField: string;
  idsParam: string;
  nameField: string;
  /** The category type a made record belongs in, and one it does not. */
  categoryType: string;
  wrongCategoryType: string;
  /** Extra query of list/ (its required filters). */
  listQuery: string;
  /** Whether list/ takes `idCategory` (page groups' list takes idFunnel and globalOnly instead). */
  listByCategory: boolean;
  /** Extra query of find/byCategory/ (page groups: categoryType). */
  byCategoryQuery: string;
  /** A record to save (its references created first). */
  make(call: Caller, over?: Body): Promise<Body>;
  /** The full record find/byId answers for a saved body (placement, status and owner added by the caller). */
  full(body: Body): Body;
  slim(full: Body): Body;
}
type Caller = (method: string, path: string, options?: { body?: unknown; key?: string }) => Promise<Response>;

function ok(res: Response, what = ''): Response {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

async function saved(call: Caller, prefix: string, body: Body, key?: string): Promise<Body> {
  ok(await call('POST', `${prefix}/save/`, { body, key }), `POST ${prefix}/save/`);
  return body;
}

const trafficSource = (over: Body = {}) => ({ idTrafficSource: newId(), trafficSourceName: 'Push network', ...over });
const offerSource = (over: Body = {}) => ({ idOfferSource: newId(), offerSourceName: 'Affiliate network', ...over });
const lander = (over: Body = {}) => ({
  idPage: newId(),
  pageType: 'lander',
  pageName: 'Quiz',
  baseURL: 'https://lp.example.com/quiz?src={trafficSourceID}',
  ...over,
});
const offer = (idOfferSource: string, over: Body = {}) => ({
  idPage: newId(),
  pageType: 'offer',
  pageName: 'Sweepstakes',
  baseURL: 'https://offer.example.com/go?sub={clickid}',
  offerParams: { idOfferSource, payout: 2.5 },
  ...over,
});
const pageGroup = (pageType: string, idPages: string[], over: Body = {}) => ({
  idPageGroup: newId(),
  pageGroupName: 'Rotation',
  pageType,
  pages: idPages.map((idPage) => ({ idPage })),
  ...over,
});
const condition = (over: Body = {}) => ({ idCondition: newId(), conditionName: 'Split', routes: [US_MOBILE_ROUTE, NIGHT_ROUTE], ...over });

const placed = ['status', 'idCategory', 'categoryName'];
const pick = (record: Body, fields: string[]) => Object.fromEntries(fields.map((f) => [f, record[f]]));

const pageGroupFamily = (prefix: string, pageType: 'lander' | 'offer'): Family => ({
  title: `page groups of ${pageType}s under ${prefix}`,
  prefix,
  idField: 'idPageGroup',
  idsParam: 'idPageGroups',
  nameField: 'pageGroupName',
  categoryType: `${pageType}Group`,
  wrongCategoryType: pageType,
  listQuery: `&pageType=${pageType}`,
  listByCategory: false,
  byCategoryQuery: `&categoryType=${pageType}Group`,
  async make(call, over = {}) {
    const make = async () => (pageType === 'lander' ? lander() : offer((await saved(call, '/offersource', offerSource())).idOfferSource));
    const pages = await Promise.all([make(), make()].map(async (page) => saved(call, '/page', await page)));
    return {
      ...pageGroup(
        pageType,
        pages.map((p) => p.idPage),
      ),
      pages: [{ idPage: pages[0].idPage, weight: 30 }, { idPage: pages[1].idPage }],
      ...over,
    };
  },
  full: (body) => ({ rotation: 'random', restrictToFunnelId: '', ...body, pages: [{ ...body.pages[0] }, { weight: 100, ...body.pages[1] }] }),
  slim: (full) => ({ ...pick(full, ['idPageGroup', 'pageGroupName', 'pageType', 'restrictToFunnelId', ...placed]), pageCount: full.pages.length }),
});

const FAMILIES: Family[] = [
  {
    title: 'traffic sources',
    prefix: '/trafficsource',
    idField: 'idTrafficSource',
    idsParam: 'idTrafficSources',
    nameField: 'trafficSourceName',
    categoryType: 'trafficsources',
    wrongCategoryType: 'offersources',
    listQuery: '',
    listByCategory: true,
    byCategoryQuery: '',
    make: async (_call, over = {}) =>
      trafficSource({
        trackingFieldSlots: { campaign: { name: 'cid', value: '{campaign_id}' }, c1: { name: 'zone', value: '', status: 'archived' } },
        postback: { postbackType: 'postbackUrl', postbackCode: 'https://ts.example.com/pb?click={externalid}&p={payout}' },
        meta: { color: 'teal' },
        ...over,
      }),
    full: (body) => ({
      costType: 'cpe',
      defaultCost: '',
      incomingCostModifier: 100,
      outgoingRevenueModifier: 100,
      outgoingPostbackProbability: 100,
      disableZeroRevenuePostbacks: false,
      ...body,
      trackingFieldSlots: {
        campaign: { name: 'cid', value: '{campaign_id}', previousName: '', status: 'active' },
        c1: { name: 'zone', value: '', previousName: '', status: 'archived' },
      },
    }),
    slim: (full) => pick(full, ['idTrafficSource', 'trafficSourceName', ...placed]),
  },
  {
    title: 'offer sources',
    prefix: '/offersource',
    idField: 'idOfferSource',
    idsParam: 'idOfferSources',
    nameField: 'offerSourceName',
    categoryType: 'offersources',
    wrongCategoryType: 'trafficsources',
    listQuery: '',
    listByCategory: true,
    byCategoryQuery: '',
    make: async (_call, over = {}) => offerSource({ queryParams: { aff: '{clickid}', net: 'x' }, postbackSubId: 'subid', ...over }),
    full: (body) => ({ querySeparator: '?', postbackSubId: '', postbackTxId: '', postbackPayout: '', umrDomainOverride: '', ...body }),
    slim: (full) => pick(full, ['idOfferSource', 'offerSourceName', ...placed]),
  },
  {
    title: 'landers',
    prefix: '/page',
    idField: 'idPage',
    idsParam: 'idPages',
    nameField: 'pageName',
    categoryType: 'lander',
    wrongCategoryType: 'offer',
    listQuery: '&pageType=lander',
    listByCategory: true,
    byCategoryQuery: '',
    make: async (_call, over = {}) => lander({ tags: ['quiz', 'en'], ...over }),
    full: (body) => ({ redirectType: '307', tags: [], notes: '', ...body }),
    slim: (full) => pick(full, ['idPage', 'pageName', 'pageType', ...placed]),
  },
  {
    title: 'offers',
    prefix: '/page',
    idField: 'idPage',
    idsParam: 'idPages',
    nameField: 'pageName',
    categoryType: 'offer',
    wrongCategoryType: 'lander',
    listQuery: '&pageType=offer',
    listByCategory: true,
    byCategoryQuery: '&pageType=offer',
    make: async (call, over = {}) => offer((await saved(call, '/offersource', offerSource())).idOfferSource, { redirectType: 'umr', notes: 'n', ...over }),
    full: (body) => ({ redirectType: '307', tags: [], notes: '', ...body, offerParams: { payoutType: 'perConversion', ...body.offerParams } }),
    slim: (full) => pick(full, ['idPage', 'pageName', 'pageType', ...placed]),
  },
  pageGroupFamily('/page/group', 'lander'),
  pageGroupFamily('/pagegroup', 'offer'),
  {
    title: 'conditions',
    prefix: '/condition',
    idField: 'idCondition',
    idsParam: 'idConditions',
    nameField: 'conditionName',
    categoryType: 'condition',
    wrongCategoryType: 'visitorTag',
    listQuery: '',
    listByCategory: true,
    byCategoryQuery: '',
    make: async (_call, over = {}) => condition(over),
    full: (body) => ({ restrictToFunnelId: '', ...body, routes: normalizedRoutes }),
    slim: (full) => ({ ...pick(full, ['idCondition', 'conditionName', 'restrictToFunnelId', ...placed]), routeKeys: ['us_mobile', 'night', 'default'] }),
  },
];

describeInBothModes('/v1 asset families', (d) => {
  let me: Account;
  let other: Account;
  beforeAll(async () => {
    [me, other] = await Promise.all([d().newAccount(`families-${newId()}@example.com`), d().newAccount(`families-other-${newId()}@example.com`)]);
  });

  /** Calls as `me` unless another key is given. */
  const call: Caller = (method, path, options = {}) => d().api.call(method, path, { body: options.body, key: options.key ?? me.apiKey });
  const category = async (categoryType: string, over: Body = {}) =>
    saved(call, '/category', { idCategory: newId(), categoryName: `${categoryType} category`, categoryType, ...over });
  /** The records of a list answer that are among `ids`, in the list's order. */
  const among = (res: Response, idField: string, ids: string[]) => (res.body as Body[]).filter((r) => ids.includes(r[idField]));
  const idsOf = (res: Response, idField: string) => (res.body as Body[]).map((r) => r[idField]);
  const statusOf = async (prefix: string, idField: string, id: string, query = '') =>
    ((await call('GET', `${prefix}/find/byStatus/?status=all${query}`)).body as Body[]).find((r) => r[idField] === id);

  describe('routes', () => {
    it('serves every route of every family, and answers 401 to each without a key', async () => {
      const results = await Promise.all(
        ALL_ROUTES.map(async ([method, path]) => ({
          route: `${method} ${path}`,
          withoutKey: (await call(method, path, { key: '' })).status,
          withKey: (await call(method, path)).body?.code ?? 'ok',
        })),
      );
      for (const r of results) expect(r).toEqual({ route: r.route, withoutKey: 401, withKey: expect.not.stringMatching(/ROUTE_NOT_FOUND|METHOD_NOT_ALLOWED/) });
    });
  });

  describe.each(FAMILIES.map((f) => [f.title, f] as const))('%s', (_title, f) => {
    const full = (body: Body, placement: Body = {}) => ({
      ...f.full(body),
      status: 'active',
      idCategory: '',
      categoryName: '',
      ...placement,
      owner: me.accountId,
    });
    const byId = (id: string, key?: string) => call('GET', `${f.prefix}/find/byId/?${f.idField}=${id}`, { key });

    it('answers full records on find/byId, find/byIds and find/byCategory, slim ones on list and find/byStatus', async () => {
      const cat = await category(f.categoryType, { categoryName: 'Winners' });
      const [inCat, loose] = await Promise.all([f.make(call, { idCategory: cat.idCategory, owner: 'NotTheOwner1' }), f.make(call)]);
      await Promise.all([saved(call, f.prefix, inCat), saved(call, f.prefix, loose)]);
      const { owner: _ignored, ...written } = inCat;
      const inCatFull = full(written, { idCategory: cat.idCategory, categoryName: 'Winners' });
      const looseFull = full(loose);
      const ids = [inCat[f.idField], loose[f.idField]];

      const [one, many, inCategory, list, listInCat, byStatus] = await Promise.all([
        byId(inCat[f.idField]),
        call('GET', `${f.prefix}/find/byIds/?${f.idsParam}=${loose[f.idField]},${newId()},${inCat[f.idField]}`),
        call('GET', `${f.prefix}/find/byCategory/?idCategory=${cat.idCategory}${f.byCategoryQuery}`),
        call('GET', `${f.prefix}/list/?status=active${f.listQuery}`),
        call('GET', `${f.prefix}/list/?status=active${f.listQuery}&idCategory=${cat.idCategory}`),
        call('GET', `${f.prefix}/find/byStatus/?status=active`),
      ]);
      expect(one.body).toEqual(inCatFull);
      expect(many.body).toEqual([looseFull, inCatFull]);
      expect(inCategory.body).toEqual([inCatFull]);
      const sorted = [...ids].sort();
      const slimOf = (id: string) => f.slim(id === inCat[f.idField] ? inCatFull : looseFull);
      expect(among(list, f.idField, ids)).toEqual(sorted.map(slimOf));
      if (f.listByCategory) expect(listInCat.body).toEqual([f.slim(inCatFull)]);
      expect(among(byStatus, f.idField, ids)).toEqual(sorted.map(slimOf));
      expect((await call('GET', `${f.prefix}/find/byIds/?${f.idsParam}=`)).body).toEqual([]);
    });

    it('updates with PUT (placement kept when left out; unknown id 404) and reads its own writes', async () => {
      const body = await saved(call, f.prefix, await f.make(call));
      for (let i = 0; i < 3; i++) {
        const renamed = { ...body, [f.nameField]: `renamed ${i}`, owner: 'NotTheOwner1' };
        ok(await call('PUT', `${f.prefix}/save/`, { body: renamed }), 'PUT save');
        expect((await byId(body[f.idField])).body[f.nameField]).toBe(`renamed ${i}`);
      }
      expect((await byId(body[f.idField])).body).toEqual(full({ ...body, [f.nameField]: 'renamed 2' }));
      const missing = await call('PUT', `${f.prefix}/save/`, { body: await f.make(call) });
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('ASSET.NOT_FOUND');
      expect((await call('POST', `${f.prefix}/save/`, { body })).status).toBe(409);
    });

    it("duplicates with bodyUpdates (owner, id and status are the service's); a missing source is a 404", async () => {
      const cat = await category(f.categoryType);
      const source = await saved(call, f.prefix, await f.make(call, { idCategory: cat.idCategory }));
      ok(await call('PUT', `${f.prefix}/archive/`, { body: { entries: [source[f.idField]] } }));
      const res = await call('POST', `${f.prefix}/duplicate/?${f.idField}=${source[f.idField]}`, {
        body: { name: 'Copy', bodyUpdates: { owner: 'NotTheOwner1', status: 'deleted', [f.idField]: 'AAAAAAAAAAAA', meta: { copied: true } } },
      });
      expect(res.status).toBe(200);
      expect(res.body.id).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(res.body.id).not.toBe('AAAAAAAAAAAA');
      expect((await byId(res.body.id)).body).toEqual(
        full(
          { ...source, [f.idField]: res.body.id, [f.nameField]: 'Copy', meta: { copied: true } },
          { idCategory: cat.idCategory, categoryName: cat.categoryName },
        ),
      );
      const uncategorized = await call('POST', `${f.prefix}/duplicate/?${f.idField}=${source[f.idField]}`, { body: { name: 'Loose', parentId: '' } });
      expect((await byId(uncategorized.body.id)).body).toMatchObject({ idCategory: '', categoryName: '' });
      expect((await call('POST', `${f.prefix}/duplicate/?${f.idField}=${newId()}`, { body: { name: 'x' } })).status).toBe(404);
      expect((await call('POST', `${f.prefix}/duplicate/?${f.idField}=${source[f.idField]}`, { body: { name: '' } })).status).toBe(400);
      // Without the source id: "required", not "must be a valid id".
      for (const query of ['', `?${f.idField}=`]) {
        const unnamed = await call('POST', `${f.prefix}/duplicate/${query}`, { body: { name: 'x' } });
        expect([query, unnamed.status, unnamed.body.details]).toEqual([query, 400, [expect.objectContaining({ field: f.idField, code: 'required' })]]);
        expect(unnamed.body.details[0].message).toContain(`${f.idField} is required`);
      }
    });

    it('archives, unarchives and deletes softly; status filters of list and find/byStatus', async () => {
      const [a, b] = await Promise.all([f.make(call), f.make(call)]);
      await Promise.all([saved(call, f.prefix, a), saved(call, f.prefix, b)]);
      const [idA, idB] = [a[f.idField], b[f.idField]];
      const ids = [idA, idB];
      ok(await call('PUT', `${f.prefix}/archive/`, { body: { entries: [idA] } }));
      ok(await call('DELETE', `${f.prefix}/delete/`, { body: { entries: [idB] } }));
      const listed = async (route: string, status: string) => among(await call('GET', `${f.prefix}/${route}/?status=${status}${f.listQuery}`), f.idField, ids);
      const idsListed = async (route: string, status: string) => (await listed(route, status)).map((r) => r[f.idField]);
      for (const route of ['list', 'find/byStatus']) {
        expect(await idsListed(route, 'active')).toEqual([]);
        expect(await idsListed(route, 'archived')).toEqual([idA]);
        expect(await idsListed(route, 'not-deleted')).toEqual([idA]);
        expect((await listed(route, 'all')).map((r) => [r[f.idField], r.status])).toEqual(
          [
            [idA, 'archived'],
            [idB, 'deleted'],
          ].sort(),
        );
        expect((await call('GET', `${f.prefix}/${route}/?status=paused${f.listQuery}`)).status).toBe(400);
        expect((await call('GET', `${f.prefix}/${route}/?${f.listQuery.slice(1)}`)).status).toBe(400);
      }
      expect((await byId(idA)).body.status).toBe('archived');
      expect((await byId(idB)).status).toBe(404);
      expect((await call('GET', `${f.prefix}/find/byIds/?${f.idsParam}=${idA},${idB}`)).body.map((r: Body) => r[f.idField])).toEqual([idA]);
      ok(await call('PUT', `${f.prefix}/unarchive/`, { body: { entries: [idA] } }));
      expect((await byId(idA)).body.status).toBe('active');
      expect((await call('PUT', `${f.prefix}/archive/`, { body: { entries: [idB] } })).status).toBe(409);
      expect((await call('PUT', `${f.prefix}/archive/`, { body: { entries: [newId()] } })).status).toBe(404);
      expect((await call('POST', `${f.prefix}/duplicate/?${f.idField}=${idB}`, { body: { name: 'x' } })).status).toBe(404);
    });

    it('moves between categories of its own type and back to uncategorized; a category of another type is a 400', async () => {
      const [mine, wrong] = await Promise.all([category(f.categoryType, { categoryName: 'Mine' }), category(f.wrongCategoryType)]);
      const body = await saved(call, f.prefix, await f.make(call));
      const id = body[f.idField];
      const move = (idCategory: string) => call('PUT', `${f.prefix}/move-category/`, { body: { entries: [id], idCategory } });
      ok(await move(mine.idCategory));
      expect((await byId(id)).body).toMatchObject({ idCategory: mine.idCategory, categoryName: 'Mine' });
      ok(await call('PUT', '/category/save/', { body: { ...mine, categoryName: 'Renamed' } }));
      expect((await byId(id)).body.categoryName).toBe('Renamed');
      const refused = await move(wrong.idCategory);
      expect(refused.status).toBe(400);
      expect(refused.body.details).toEqual([expect.objectContaining({ field: 'idCategory' })]);
      const saveRefused = await call('PUT', `${f.prefix}/save/`, { body: { ...body, idCategory: wrong.idCategory } });
      expect(saveRefused.status).toBe(400);
      expect((await call('POST', `${f.prefix}/save/`, { body: await f.make(call, { idCategory: wrong.idCategory }) })).status).toBe(400);
      expect((await byId(id)).body.idCategory).toBe(mine.idCategory);
      ok(await move(''));
      expect((await byId(id)).body).toMatchObject({ idCategory: '', categoryName: '' });
    });

    it('keeps accounts apart: another account gets 404s and may use the same id', async () => {
      const body = await saved(call, f.prefix, await f.make(call));
      const id = body[f.idField];
      const as = { key: other.apiKey };
      const [found, byIds, list, update, archive, duplicate, move] = await Promise.all([
        byId(id, other.apiKey),
        call('GET', `${f.prefix}/find/byIds/?${f.idsParam}=${id}`, as),
        call('GET', `${f.prefix}/find/byStatus/?status=all`, as),
        call('PUT', `${f.prefix}/save/`, { ...as, body: { ...body, [f.nameField]: 'stolen' } }),
        call('PUT', `${f.prefix}/archive/`, { ...as, body: { entries: [id] } }),
        call('POST', `${f.prefix}/duplicate/?${f.idField}=${id}`, { ...as, body: { name: 'x' } }),
        call('PUT', `${f.prefix}/move-category/`, { ...as, body: { entries: [id], idCategory: '' } }),
      ]);
      expect([found.status, byIds.body, idsOf(list, f.idField), update.status, archive.status, duplicate.status, move.status]).toEqual([
        404,
        [],
        expect.not.arrayContaining([id]),
        404,
        404,
        404,
        404,
      ]);
      expect((await call('DELETE', `${f.prefix}/delete/`, { ...as, body: { entries: [id] } })).status).toBe(404);
      expect((await byId(id)).body).toEqual(full(body));
    });
  });

  describe('traffic sources', () => {
    it('keeps the name before a rename as previousName, and checks its fields', async () => {
      const body = await saved(call, '/trafficsource', trafficSource({ trackingFieldSlots: { c2: { name: 'zone', value: '{zoneid}' } } }));
      const rename = { ...body, trackingFieldSlots: { c2: { name: 'zone_id', value: '{zoneid}' } }, costType: 'cpa', defaultCost: '0.015' };
      ok(await call('PUT', '/trafficsource/save/', { body: rename }));
      expect((await call('GET', `/trafficsource/find/byId/?idTrafficSource=${body.idTrafficSource}`)).body).toMatchObject({
        costType: 'cpa',
        defaultCost: '0.015',
        trackingFieldSlots: { c2: { name: 'zone_id', value: '{zoneid}', previousName: 'zone', status: 'active' } },
      });
      const bad: [Body, string][] = [
        [{ trackingFieldSlots: { c21: { name: 'x' } } }, 'trackingFieldSlots.c21'],
        [{ trackingFieldSlots: { c1: { name: 'same' }, c2: { name: 'same' } } }, 'trackingFieldSlots.c2.name'],
        [{ trackingFieldSlots: { c1: { name: 'bad/name' } } }, 'trackingFieldSlots.c1.name'],
        [{ postback: { postbackType: 'pixelUrl', postbackCode: 'not a url' } }, 'postback.postbackCode'],
        [{ defaultCost: '-1' }, 'defaultCost'],
        [{ incomingCostModifier: 501 }, 'incomingCostModifier'],
        [{ outgoingPostbackProbability: 101 }, 'outgoingPostbackProbability'],
        [{ costType: 'cpm' }, 'costType'],
      ];
      const results = await Promise.all(bad.map(([over]) => call('POST', '/trafficsource/save/', { body: trafficSource(over) })));
      expect(results.map((r) => [r.status, r.body.details?.[0]?.field])).toEqual(bad.map(([, field]) => [400, field]));
    });
  });

  describe('offer sources', () => {
    it('checks query parameters and the UMR domain', async () => {
      const bad: [Body, string][] = [
        [{ queryParams: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, 'v'])) }, 'queryParams'],
        [{ queryParams: { ['k'.repeat(65)]: 'v' } }, `queryParams.${'k'.repeat(64)}…`],
        [{ umrDomainOverride: 'https://umr.example.com' }, 'umrDomainOverride'],
        [{ querySeparator: '#' }, 'querySeparator'],
        [{ postbackTxId: 'x'.repeat(65) }, 'postbackTxId'],
      ];
      const results = await Promise.all(bad.map(([over]) => call('POST', '/offersource/save/', { body: offerSource(over) })));
      expect(results.map((r) => [r.status, r.body.details?.[0]?.field])).toEqual(bad.map(([, field]) => [400, field]));
      ok(await call('POST', '/offersource/save/', { body: offerSource({ umrDomainOverride: 'umr.example.com', querySeparator: '&' }) }));
    });
  });

  describe('pages', () => {
    it('filters list by status and pageType (both required), idCategory (empty allowed) and idOfferSource', async () => {
      const [landerCat, offerCat, sourceA, sourceB] = await Promise.all([
        category('lander'),
        category('offer'),
        saved(call, '/offersource', offerSource()),
        saved(call, '/offersource', offerSource()),
      ]);
      const pages = await Promise.all([
        saved(call, '/page', lander({ idCategory: landerCat.idCategory })),
        saved(call, '/page', lander()),
        saved(call, '/page', offer(sourceA.idOfferSource, { idCategory: offerCat.idCategory })),
        saved(call, '/page', offer(sourceB.idOfferSource)),
      ]);
      const [landerIn, landerLoose, offerA, offerB] = pages.map((p) => p.idPage);
      const ids = pages.map((p) => p.idPage);
      const listed = async (query: string) => among(await call('GET', `/page/list/?${query}`), 'idPage', ids).map((p) => p.idPage);
      const sortedIds = (...list: string[]) => [...list].sort();
      expect(await listed('status=active&pageType=lander')).toEqual(sortedIds(landerIn, landerLoose));
      expect(await listed('status=active&pageType=offer')).toEqual(sortedIds(offerA, offerB));
      expect(await listed(`status=active&pageType=lander&idCategory=${landerCat.idCategory}`)).toEqual([landerIn]);
      expect(await listed('status=active&pageType=lander&idCategory=')).toEqual([landerLoose]);
      expect(await listed(`status=active&pageType=offer&idOfferSource=${sourceA.idOfferSource}`)).toEqual([offerA]);
      expect(await listed(`status=all&pageType=offer&idOfferSource=${sourceB.idOfferSource}&idCategory=`)).toEqual([offerB]);
      for (const query of ['status=active', 'pageType=lander', 'status=active&pageType=page', 'status=nope&pageType=lander']) {
        expect({ query, status: (await call('GET', `/page/list/?${query}`)).status }).toEqual({ query, status: 400 });
      }
      expect(among(await call('GET', '/page/find/byStatus/?status=active&pageType=offer'), 'idPage', ids).map((p) => p.idPage)).toEqual(
        sortedIds(offerA, offerB),
      );
      expect(among(await call('GET', '/page/find/byStatus/?status=active'), 'idPage', ids)).toHaveLength(4);
      expect((await call('GET', `/page/find/byCategory/?idCategory=${landerCat.idCategory}&pageType=offer`)).body).toEqual([]);
      expect(idsOf(await call('GET', `/page/find/byCategory/?idCategory=${landerCat.idCategory}&pageType=lander`), 'idPage')).toEqual([landerIn]);
      expect((await call('GET', '/page/find/byCategory/')).status).toBe(400);
      expect((await call('GET', `/page/find/byCategory/?idCategory=${landerCat.idCategory}&pageType=nope`)).status).toBe(400);
    });

    it('refuses a lander with offerParams, a pageType change, a bad base URL, and a lander in an offer category', async () => {
      const source = await saved(call, '/offersource', offerSource());
      const [offerCat, page] = await Promise.all([category('offer'), saved(call, '/page', lander())]);
      const cases: [string, Body, string][] = [
        ['POST', lander({ offerParams: { idOfferSource: source.idOfferSource } }), 'offerParams'],
        ['POST', lander({ idCategory: offerCat.idCategory }), 'idCategory'],
        ['POST', lander({ baseURL: 'ftp://lp.example.com/' }), 'baseURL'],
        ['POST', lander({ baseURL: 'https://lp.example.com/{path}/x' }), 'baseURL'],
        ['POST', lander({ tags: ['x'.repeat(65)] }), 'tags'],
        ['POST', lander({ redirectType: '302' }), 'redirectType'],
        ['POST', offer(source.idOfferSource, { offerParams: { idOfferSource: source.idOfferSource, payoutType: 'cpm' } }), 'offerParams.payoutType'],
        ['PUT', { ...page, pageType: 'offer', offerParams: { idOfferSource: source.idOfferSource } }, 'pageType'],
        ['PUT', { ...page, idCategory: offerCat.idCategory }, 'idCategory'],
      ];
      const results = await Promise.all(cases.map(([method, body]) => call(method, '/page/save/', { body })));
      expect(results.map((r) => [r.status, r.body.details?.[0]?.field])).toEqual(cases.map(([, , field]) => [400, field]));
      const moved = await call('PUT', '/page/move-category/', { body: { entries: [page.idPage], idCategory: offerCat.idCategory } });
      expect(moved.status).toBe(400);
      expect(moved.body.error).toMatch(/lander/);
      expect((await call('GET', `/page/find/byId/?idPage=${page.idPage}`)).body).toMatchObject({ pageType: 'lander', idCategory: '' });
      expect((await call('GET', `/page/find/byId/?idPage=${cases[0][1].idPage}`)).status).toBe(404);
    });

    it('checks the offer source an offer names on create, update and duplicate: missing, deleted or of another account is a 400', async () => {
      const [live, deleted, theirs] = await Promise.all([
        saved(call, '/offersource', offerSource()),
        saved(call, '/offersource', offerSource()),
        saved(call, '/offersource', offerSource(), other.apiKey),
      ]);
      ok(await call('DELETE', '/offersource/delete/', { body: { entries: [deleted.idOfferSource] } }));
      const page = await saved(call, '/page', offer(live.idOfferSource));
      const missingId = newId();
      const attempts = await Promise.all([
        call('POST', '/page/save/', { body: offer(missingId) }),
        call('POST', '/page/save/', { body: offer(deleted.idOfferSource) }),
        call('POST', '/page/save/', { body: offer(theirs.idOfferSource) }),
        call('PUT', '/page/save/', { body: { ...page, offerParams: { idOfferSource: deleted.idOfferSource } } }),
        call('POST', `/page/duplicate/?idPage=${page.idPage}`, {
          body: { name: 'Copy', bodyUpdates: { offerParams: { idOfferSource: theirs.idOfferSource } } },
        }),
      ]);
      const sourceIds = [missingId, deleted.idOfferSource, theirs.idOfferSource, deleted.idOfferSource, theirs.idOfferSource];
      attempts.forEach((res, i) => {
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('ASSET.INVALID_REFERENCE');
        expect(res.body.details).toEqual([{ field: 'offerParams.idOfferSource', code: 'reference', message: expect.stringContaining(sourceIds[i]) }]);
      });
      // A reference to a traffic source (another kind) with the same id format is not an offer source.
      const ts = await saved(call, '/trafficsource', trafficSource());
      expect((await call('POST', '/page/save/', { body: offer(ts.idTrafficSource) })).body.code).toBe('ASSET.INVALID_REFERENCE');
      expect((await call('GET', `/page/find/byId/?idPage=${page.idPage}`)).body.offerParams.idOfferSource).toBe(live.idOfferSource);
      expect(among(await call('GET', '/page/find/byStatus/?status=all&pageType=offer'), 'idPage', [page.idPage])).toHaveLength(1);
      // The other account can use its own offer source.
      ok(await call('POST', '/page/save/', { body: offer(theirs.idOfferSource), key: other.apiKey }));
    });
  });

  describe('page groups', () => {
    const groupIds = (res: Response, ids: string[]) => among(res, 'idPageGroup', ids).map((g) => g.idPageGroup);

    it('answers the same groups under /page/group and /pagegroup', async () => {
      const page = await saved(call, '/page', lander());
      const a = await saved(call, '/page/group', pageGroup('lander', [page.idPage]));
      const b = await saved(call, '/pagegroup', pageGroup('lander', [page.idPage]));
      const [viaOld, viaNew] = await Promise.all([
        call('GET', `/pagegroup/find/byIds/?idPageGroups=${a.idPageGroup},${b.idPageGroup}`),
        call('GET', `/page/group/find/byIds/?idPageGroups=${a.idPageGroup},${b.idPageGroup}`),
      ]);
      expect(viaOld.body).toHaveLength(2);
      expect(viaNew.body).toEqual(viaOld.body);
      ok(await call('PUT', '/pagegroup/archive/', { body: { entries: [a.idPageGroup] } }));
      expect((await call('GET', `/page/group/find/byId/?idPageGroup=${a.idPageGroup}`)).body.status).toBe('archived');
    });

    it('filters list by pageType and status (both required), idFunnel and globalOnly; find/byType defaults to not-deleted', async () => {
      const [landerPage, offerPage] = await Promise.all([
        saved(call, '/page', lander()),
        (async () => saved(call, '/page', offer((await saved(call, '/offersource', offerSource())).idOfferSource)))(),
      ]);
      const [funnelA, funnelB] = [newId(), newId()];
      const groups = await Promise.all([
        saved(call, '/page/group', pageGroup('lander', [landerPage.idPage])),
        saved(call, '/page/group', pageGroup('lander', [landerPage.idPage], { restrictToFunnelId: funnelA })),
        saved(call, '/page/group', pageGroup('lander', [], { restrictToFunnelId: funnelB })),
        saved(call, '/page/group', pageGroup('offer', [offerPage.idPage], { restrictToFunnelId: funnelA })),
      ]);
      const [global, localA, localB, offerLocalA] = groups.map((g) => g.idPageGroup);
      const ids = groups.map((g) => g.idPageGroup);
      const sortedIds = (...list: string[]) => [...list].sort();
      const list = async (query: string) => groupIds(await call('GET', `/pagegroup/list/?${query}`), ids);
      expect(await list('pageType=lander&status=active')).toEqual(sortedIds(global, localA, localB));
      expect(await list(`pageType=lander&status=active&idFunnel=${funnelA}`)).toEqual([localA]);
      expect(await list(`pageType=offer&status=active&idFunnel=${funnelA}`)).toEqual([offerLocalA]);
      expect(await list(`pageType=lander&status=active&idFunnel=${funnelA}&globalOnly=true`)).toEqual([localA]);
      expect(await list('pageType=lander&status=active&globalOnly=true')).toEqual([global]);
      expect(await list('pageType=lander&status=active&idFunnel=&globalOnly=true')).toEqual([global]);
      expect(await list('pageType=lander&status=active&idFunnel=&globalOnly=false')).toEqual(sortedIds(global, localA, localB));
      for (const query of ['status=active', 'pageType=lander', 'pageType=landers&status=active', 'pageType=lander&status=active&globalOnly=yes']) {
        expect({ query, status: (await call('GET', `/page/group/list/?${query}`)).status }).toEqual({ query, status: 400 });
      }
      const localSlim = (await call('GET', `/page/group/list/?pageType=lander&status=active&idFunnel=${funnelA}`)).body;
      expect(localSlim).toEqual([
        {
          idPageGroup: localA,
          pageGroupName: 'Rotation',
          pageType: 'lander',
          restrictToFunnelId: funnelA,
          status: 'active',
          idCategory: '',
          categoryName: '',
          pageCount: 1,
        },
      ]);

      expect(groupIds(await call('GET', '/pagegroup/find/byCategory/?idCategory=&categoryType=landerGroup'), ids)).toEqual([global]);
      ok(await call('PUT', '/page/group/archive/', { body: { entries: [localA] } }));
      ok(await call('DELETE', '/page/group/delete/', { body: { entries: [localB] } }));
      const byType = async (query: string) => groupIds(await call('GET', `/page/group/find/byType/?${query}`), ids);
      expect(await byType('pageType=lander')).toEqual(sortedIds(global, localA));
      expect(await byType('pageType=lander&status=active')).toEqual([global]);
      expect(await byType('pageType=lander&status=all')).toEqual(sortedIds(global, localA, localB));
      expect(await byType('pageType=offer')).toEqual([offerLocalA]);
      const slimByType = (await call('GET', '/pagegroup/find/byType/?pageType=offer')).body.find((g: Body) => g.idPageGroup === offerLocalA);
      expect(slimByType).toEqual(expect.objectContaining({ pageCount: 1, restrictToFunnelId: funnelA }));
      expect(slimByType.pages).toBeUndefined();
      expect((await call('GET', '/page/group/find/byType/')).status).toBe(400);
      expect((await call('GET', '/page/group/find/byType/?pageType=offerGroup')).status).toBe(400);
      expect(groupIds(await call('GET', '/page/group/find/byStatus/?status=archived&pageType=lander'), ids)).toEqual([localA]);
      expect(groupIds(await call('GET', '/page/group/find/byStatus/?status=archived&pageType=offer'), ids)).toEqual([]);
    });

    it('find/byCategory needs categoryType landerGroup or offerGroup', async () => {
      const cat = await category('landerGroup');
      const page = await saved(call, '/page', lander());
      const group = await saved(call, '/page/group', pageGroup('lander', [page.idPage], { idCategory: cat.idCategory }));
      expect(idsOf(await call('GET', `/pagegroup/find/byCategory/?idCategory=${cat.idCategory}&categoryType=landerGroup`), 'idPageGroup')).toEqual([
        group.idPageGroup,
      ]);
      expect((await call('GET', `/pagegroup/find/byCategory/?idCategory=${cat.idCategory}&categoryType=offerGroup`)).body).toEqual([]);
      for (const query of [`idCategory=${cat.idCategory}`, `idCategory=${cat.idCategory}&categoryType=lander`, 'categoryType=landerGroup']) {
        expect({ query, status: (await call('GET', `/page/group/find/byCategory/?${query}`)).status }).toEqual({ query, status: 400 });
      }
    });

    it('checks every page it names: missing, deleted, of the other pageType, of another account or repeated is a 400 naming the entry', async () => {
      const source = await saved(call, '/offersource', offerSource());
      const [live, deleted, offerPage, theirs] = await Promise.all([
        saved(call, '/page', lander()),
        saved(call, '/page', lander()),
        saved(call, '/page', offer(source.idOfferSource)),
        saved(call, '/page', lander(), other.apiKey),
      ]);
      ok(await call('DELETE', '/page/delete/', { body: { entries: [deleted.idPage] } }));
      const group = await saved(call, '/pagegroup', pageGroup('lander', [live.idPage]));
      const missing = newId();
      const cases: [string, string, Body, string, string][] = [
        ['POST', '/pagegroup/save/', pageGroup('lander', [live.idPage, missing]), 'pages[1].idPage', missing],
        ['POST', '/page/group/save/', pageGroup('lander', [deleted.idPage]), 'pages[0].idPage', deleted.idPage],
        ['POST', '/pagegroup/save/', pageGroup('lander', [live.idPage, offerPage.idPage]), 'pages[1].idPage', offerPage.idPage],
        ['POST', '/pagegroup/save/', pageGroup('lander', [theirs.idPage]), 'pages[0].idPage', theirs.idPage],
        ['PUT', '/pagegroup/save/', { ...group, pages: [{ idPage: live.idPage }, { idPage: deleted.idPage }] }, 'pages[1].idPage', deleted.idPage],
        [
          'POST',
          `/page/group/duplicate/?idPageGroup=${group.idPageGroup}`,
          { name: 'Copy', bodyUpdates: { pages: [{ idPage: offerPage.idPage }] } },
          'pages[0].idPage',
          offerPage.idPage,
        ],
      ];
      const results = await Promise.all(cases.map(([method, path, body]) => call(method, path, { body })));
      results.forEach((res, i) => {
        expect({ case: i, status: res.status, code: res.body.code }).toEqual({ case: i, status: 400, code: 'ASSET.INVALID_REFERENCE' });
        expect(res.body.details).toEqual([{ field: cases[i][3], code: 'reference', message: expect.stringContaining(cases[i][4]) }]);
      });
      const typeChange = await call('PUT', '/pagegroup/save/', { body: { ...group, pageType: 'offer' } });
      expect([typeChange.status, typeChange.body.details]).toEqual([400, [expect.objectContaining({ field: 'pageType', code: 'immutable' })]]);
      const repeated = await call('POST', '/pagegroup/save/', { body: pageGroup('lander', [live.idPage, live.idPage]) });
      expect([repeated.status, repeated.body.details?.[0]?.field]).toEqual([400, 'pages[1].idPage']);
      const weights = await call('POST', '/pagegroup/save/', { body: { ...pageGroup('lander', []), pages: [{ idPage: live.idPage, weight: 10_001 }] } });
      expect(weights.status).toBe(400);
      expect((await call('POST', '/pagegroup/save/', { body: pageGroup('lander', [], { rotation: 'weighted' }) })).status).toBe(400);
      expect((await call('GET', `/pagegroup/find/byId/?idPageGroup=${group.idPageGroup}`)).body.pages).toEqual([{ idPage: live.idPage, weight: 100 }]);
    });

    it('keeps a funnel-local group out of categories: idCategory "", no move-category, scope fixed on update, copies stay local', async () => {
      const [page, cat] = await Promise.all([saved(call, '/page', lander()), category('landerGroup')]);
      const funnel = newId();
      const local = await saved(call, '/page/group', pageGroup('lander', [page.idPage], { restrictToFunnelId: funnel }));
      const getGroup = async (id: string) => (await call('GET', `/page/group/find/byId/?idPageGroup=${id}`)).body;
      expect(await getGroup(local.idPageGroup)).toEqual({
        ...local,
        pages: [{ idPage: page.idPage, weight: 100 }],
        rotation: 'random',
        status: 'active',
        idCategory: '',
        categoryName: '',
        owner: me.accountId,
      });
      const attempts = await Promise.all([
        call('POST', '/page/group/save/', { body: pageGroup('lander', [], { restrictToFunnelId: newId(), idCategory: cat.idCategory }) }),
        call('PUT', '/page/group/save/', { body: { ...local, idCategory: cat.idCategory } }),
        call('PUT', '/page/group/move-category/', { body: { entries: [local.idPageGroup], idCategory: cat.idCategory } }),
        call('PUT', '/pagegroup/move-category/', { body: { entries: [local.idPageGroup], idCategory: '' } }),
        call('PUT', '/page/group/save/', { body: { ...local, restrictToFunnelId: newId() } }),
        call('PUT', '/page/group/save/', { body: { ...local, restrictToFunnelId: '' } }),
        call('POST', '/page/group/save/', { body: pageGroup('lander', [], { restrictToFunnelId: 'not-an-id' }) }),
      ]);
      expect(attempts.map((r) => r.status)).toEqual([400, 400, 400, 400, 400, 400, 400]);
      expect(attempts.map((r) => r.body.details?.[0]?.field)).toEqual([
        'idCategory',
        'idCategory',
        'entries[0]',
        'entries[0]',
        'restrictToFunnelId',
        'restrictToFunnelId',
        'restrictToFunnelId',
      ]);
      // A global group cannot become local either; a local copy of it leaves its category.
      const global = await saved(call, '/page/group', pageGroup('lander', [page.idPage], { idCategory: cat.idCategory }));
      expect((await call('PUT', '/page/group/save/', { body: { ...global, restrictToFunnelId: funnel } })).status).toBe(400);
      const localCopy = await call('POST', `/page/group/duplicate/?idPageGroup=${global.idPageGroup}`, {
        body: { name: 'Into the funnel', bodyUpdates: { restrictToFunnelId: funnel } },
      });
      expect(await getGroup(localCopy.body.id)).toMatchObject({ restrictToFunnelId: funnel, idCategory: '', categoryName: '' });

      const copy = await call('POST', `/page/group/duplicate/?idPageGroup=${local.idPageGroup}`, { body: { name: 'Local copy' } });
      expect(await getGroup(copy.body.id)).toMatchObject({ pageGroupName: 'Local copy', restrictToFunnelId: funnel, idCategory: '' });
      const otherFunnel = newId();
      const moved = await call('POST', `/pagegroup/duplicate/?idPageGroup=${local.idPageGroup}`, {
        body: { name: 'Elsewhere', bodyUpdates: { restrictToFunnelId: otherFunnel } },
      });
      expect(await getGroup(moved.body.id)).toMatchObject({ restrictToFunnelId: otherFunnel, idCategory: '' });
      const globalCopy = await call('POST', `/pagegroup/duplicate/?idPageGroup=${local.idPageGroup}`, {
        body: { name: 'Global', parentId: cat.idCategory, bodyUpdates: { restrictToFunnelId: '' } },
      });
      expect(await getGroup(globalCopy.body.id)).toMatchObject({ restrictToFunnelId: '', idCategory: cat.idCategory });
      expect((await call('POST', `/pagegroup/duplicate/?idPageGroup=${local.idPageGroup}`, { body: { name: 'x', parentId: cat.idCategory } })).status).toBe(
        400,
      );
    });
  });

  describe('conditions', () => {
    it('filters list by status (required), idCategory, idFunnel and globalOnly', async () => {
      const cat = await category('condition');
      const funnel = newId();
      const conditions = await Promise.all([
        saved(call, '/condition', condition({ idCategory: cat.idCategory })),
        saved(call, '/condition', condition()),
        saved(call, '/condition', condition({ restrictToFunnelId: funnel })),
      ]);
      const [inCat, global, local] = conditions.map((c) => c.idCondition);
      const ids = conditions.map((c) => c.idCondition);
      const list = async (query: string) => among(await call('GET', `/condition/list/?${query}`), 'idCondition', ids).map((c) => c.idCondition);
      const sortedIds = (...list: string[]) => [...list].sort();
      expect(await list('status=active')).toEqual(sortedIds(inCat, global, local));
      expect(await list(`status=active&idCategory=${cat.idCategory}`)).toEqual([inCat]);
      expect(await list('status=active&idCategory=&globalOnly=true')).toEqual([global]);
      expect(await list(`status=active&idFunnel=${funnel}`)).toEqual([local]);
      expect(await list('status=active&globalOnly=true')).toEqual(sortedIds(inCat, global));
      expect(await list('status=archived')).toEqual([]);
      expect((await call('GET', '/condition/list/')).status).toBe(400);
      // Uncategorized holds the global conditions only: a local one is in no category.
      expect(among(await call('GET', '/condition/find/byCategory/?idCategory='), 'idCondition', ids).map((c) => c.idCondition)).toEqual([global]);
      expect((await call('GET', `/condition/list/?status=active&idFunnel=${funnel}`)).body).toEqual([
        {
          idCondition: local,
          conditionName: 'Split',
          restrictToFunnelId: funnel,
          status: 'active',
          idCategory: '',
          categoryName: '',
          routeKeys: ['us_mobile', 'night', 'default'],
        },
      ]);
      expect((await call('PUT', '/condition/move-category/', { body: { entries: [local], idCategory: cat.idCategory } })).status).toBe(400);
      expect((await call('PUT', '/condition/save/', { body: { ...conditions[2], restrictToFunnelId: '' } })).status).toBe(400);
      const copy = await call('POST', `/condition/duplicate/?idCondition=${local}`, { body: { name: 'Copy' } });
      expect((await call('GET', `/condition/find/byId/?idCondition=${copy.body.id}`)).body).toMatchObject({ restrictToFunnelId: funnel, idCategory: '' });
    });

    it('checks routes and the visitor tags its rules name', async () => {
      const [tag, theirTag] = await Promise.all([
        saved(call, '/visitortag', { idTag: newId(), tagName: 'Buyer', color: 'red' }),
        saved(call, '/visitortag', { idTag: newId(), tagName: 'Theirs', color: 'red' }, other.apiKey),
      ]);
      const tagRoute = (values: string[]) => ({
        idRoute: 'buyers',
        routeName: 'Buyers',
        ruleGroups: [{ rules: [{ attribute: 'visitorTag', operator: 'has', values }] }],
      });
      ok(await call('POST', '/condition/save/', { body: condition({ routes: [tagRoute([tag.idTag])] }) }));
      const missing = newId();
      const references = await Promise.all([
        call('POST', '/condition/save/', { body: condition({ routes: [US_MOBILE_ROUTE, tagRoute([tag.idTag, missing])] }) }),
        call('POST', '/condition/save/', { body: condition({ routes: [tagRoute([theirTag.idTag])] }) }),
      ]);
      expect(references.map((r) => [r.status, r.body.code, r.body.details])).toEqual([
        [
          400,
          'ASSET.INVALID_REFERENCE',
          [{ field: 'routes[1].ruleGroups[0].rules[0].values[1]', code: 'reference', message: expect.stringContaining(missing) }],
        ],
        [
          400,
          'ASSET.INVALID_REFERENCE',
          [{ field: 'routes[0].ruleGroups[0].rules[0].values[0]', code: 'reference', message: expect.stringContaining(theirTag.idTag) }],
        ],
      ]);
      const invalid: [unknown, string][] = [
        [[{ ...US_MOBILE_ROUTE, idRoute: 'default' }], 'routes[0].idRoute'],
        [[US_MOBILE_ROUTE, US_MOBILE_ROUTE], 'routes[1].idRoute'],
        [[], 'routes'],
        [
          [{ idRoute: 'x', routeName: 'X', ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'contains', values: ['1'] }] }] }],
          'routes[0].ruleGroups[0].rules[0].operator',
        ],
        [
          [{ idRoute: 'x', routeName: 'X', ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'gt', values: ['noon'] }] }] }],
          'routes[0].ruleGroups[0].rules[0].values[0]',
        ],
      ];
      const results = await Promise.all(invalid.map(([routes]) => call('POST', '/condition/save/', { body: condition({ routes }) })));
      expect(results.map((r) => [r.status, r.body.details?.[0]?.field])).toEqual(invalid.map(([, field]) => [400, field]));
    });

    it('evaluates a saved condition or a draft against a visitor context', async () => {
      const [saved1, tag] = await Promise.all([
        saved(call, '/condition', condition()),
        saved(call, '/visitortag', { idTag: newId(), tagName: 'Buyer', color: 'red' }),
      ]);
      const evaluate = (body: unknown, key?: string) => call('POST', '/condition/evaluate/', { body, key });
      const [usMobile, night, fallback] = await Promise.all([
        evaluate({ idCondition: saved1.idCondition, visitor: { country: 'CA', deviceType: 'mobile' }, time: '2025-03-01T12:00:00Z' }),
        evaluate({ idCondition: saved1.idCondition, visitor: { country: 'DE' }, time: '2025-03-01T23:30:00Z' }),
        evaluate({ idCondition: saved1.idCondition, visitor: { country: 'us', deviceType: 'mobile' }, time: '2025-03-01T12:00:00Z' }),
      ]);
      expect(usMobile.body).toEqual({ routeKey: 'us_mobile', matchedRoute: { idRoute: 'us_mobile', routeName: 'US mobile' }, reason: expect.any(String) });
      expect(night.body).toEqual({
        routeKey: 'night',
        matchedRoute: { idRoute: 'night', routeName: 'Night' },
        reason: expect.stringMatching(/group 1 of 2/),
      });
      expect(fallback.body).toEqual({ routeKey: 'default', matchedRoute: null, reason: expect.any(String) });

      const draft = {
        routes: [
          { idRoute: 'buyers', routeName: 'Buyers', ruleGroups: [{ rules: [{ attribute: 'visitorTag', operator: 'has', values: [tag.idTag] }] }] },
          {
            idRoute: 'campaign',
            routeName: 'Campaign',
            ruleGroups: [{ rules: [{ attribute: 'trackingField', name: 'utm_campaign', operator: 'startsWith', values: ['spring'] }] }],
          },
        ],
      };
      const [buyer, campaign, neither] = await Promise.all([
        evaluate({ condition: draft, visitor: {}, visitorTags: [tag.idTag] }),
        evaluate({ condition: draft, visitor: { country: 'US' }, trackingFields: { utm_campaign: 'spring_sale' } }),
        evaluate({ condition: draft, visitor: {}, dataBuffer: { step: '2' } }),
      ]);
      expect([buyer.body.routeKey, campaign.body.routeKey, neither.body.routeKey]).toEqual(['buyers', 'campaign', 'default']);

      const refused = await Promise.all([
        evaluate({ idCondition: newId(), visitor: {} }),
        evaluate({ idCondition: saved1.idCondition, visitor: {}, colour: 'blue' }),
        evaluate({ idCondition: saved1.idCondition, visitor: {} }, other.apiKey),
        evaluate({ idCondition: saved1.idCondition }),
        evaluate({ idCondition: saved1.idCondition, visitor: { country: 7 } }),
        evaluate({ idCondition: saved1.idCondition, visitor: {}, time: 'yesterday' }),
        evaluate({ visitor: {} }),
        evaluate({ condition: { routes: [{ ...US_MOBILE_ROUTE, idRoute: 'default' }] }, visitor: {} }),
        evaluate({ condition: 'nope', visitor: {} }),
        evaluate({ idCondition: saved1.idCondition, visitor: {} }, ''),
      ]);
      expect(refused.map((r) => r.status)).toEqual([404, 400, 404, 400, 400, 400, 400, 400, 400, 401]);
      expect(refused[4].body.details).toEqual([expect.objectContaining({ field: 'visitor.country' })]);
    });
  });

  describe('categories', () => {
    // Each category type with one family it manages, and how to make a child in a category of it.
    const children: [string, string, string, (idCategory: string) => Promise<Body>][] = [
      ['trafficsources', '/trafficsource', 'idTrafficSource', async (idCategory) => trafficSource({ idCategory })],
      ['offersources', '/offersource', 'idOfferSource', async (idCategory) => offerSource({ idCategory })],
      ['lander', '/page', 'idPage', async (idCategory) => lander({ idCategory })],
      ['offer', '/page', 'idPage', async (idCategory) => offer((await saved(call, '/offersource', offerSource())).idOfferSource, { idCategory })],
      ['landerGroup', '/page/group', 'idPageGroup', async (idCategory) => pageGroup('lander', [], { idCategory })],
      ['offerGroup', '/pagegroup', 'idPageGroup', async (idCategory) => pageGroup('offer', [], { idCategory })],
      ['condition', '/condition', 'idCondition', async (idCategory) => condition({ idCategory })],
    ];

    it.each(children)('cascades reach the %s kind: archive, move, orphan, delete', async (categoryType, prefix, idField, make) => {
      const [c1, c2, c3] = await Promise.all([category(categoryType), category(categoryType, { categoryName: 'Target' }), category(categoryType)]);
      const [child, orphan] = await Promise.all([saved(call, prefix, await make(c1.idCategory)), saved(call, prefix, await make(c3.idCategory))]);
      // A local page group or condition in no category is never reached.
      const local =
        prefix === '/pagegroup' || prefix === '/condition' ? await saved(call, prefix, { ...(await make('')), restrictToFunnelId: newId() }) : undefined;
      const state = (id: string) => statusOf(prefix, idField, id);

      ok(await call('PUT', '/category/archive/', { body: { entries: [c1.idCategory], cascadeAction: 'cascade' } }));
      expect(await state(child[idField])).toMatchObject({ status: 'archived', idCategory: c1.idCategory });
      ok(await call('DELETE', '/category/delete/', { body: { entries: [c1.idCategory], cascadeAction: 'move', targetParentID: c2.idCategory } }));
      expect(await state(child[idField])).toMatchObject({ status: 'archived', idCategory: c2.idCategory, categoryName: 'Target' });
      ok(await call('PUT', '/category/archive/', { body: { entries: [c3.idCategory], cascadeAction: 'orphan' } }));
      expect(await state(orphan[idField])).toMatchObject({ status: 'active', idCategory: '' });
      ok(await call('DELETE', '/category/delete/', { body: { entries: [c2.idCategory], cascadeAction: 'cascade' } }));
      expect(await state(child[idField])).toMatchObject({ status: 'deleted' });
      if (local) expect(await state(local[idField])).toMatchObject({ status: 'active', idCategory: '' });
    });

    it('moves children to uncategorized when deleted without an option, and refuses a move target of another type', async () => {
      const [landers, offers] = await Promise.all([category('lander'), category('offer')]);
      const page = await saved(call, '/page', lander({ idCategory: landers.idCategory }));
      const refused = await call('DELETE', '/category/delete/', {
        body: { entries: [landers.idCategory], cascadeAction: 'move', targetParentID: offers.idCategory },
      });
      expect(refused.status).toBe(400);
      ok(await call('DELETE', '/category/delete/', { body: { entries: [landers.idCategory] } }));
      expect((await call('GET', `/page/find/byId/?idPage=${page.idPage}`)).body).toMatchObject({ status: 'active', idCategory: '', categoryName: '' });
    });
  });

  describe('durability', () => {
    it('keeps every family across a restart, and reads a category stored with uiSettings as meta', async () => {
      const cat = await category('lander', { meta: { collapsed: false } });
      const source = await saved(call, '/offersource', offerSource());
      const page = await saved(call, '/page', offer(source.idOfferSource));
      const group = await saved(call, '/pagegroup', pageGroup('offer', [page.idPage]));
      const cond = await saved(call, '/condition', condition({ restrictToFunnelId: newId() }));
      const ts = await saved(call, '/trafficsource', trafficSource());
      const reads = () =>
        Promise.all([
          call('GET', `/offersource/find/byId/?idOfferSource=${source.idOfferSource}`),
          call('GET', `/page/find/byId/?idPage=${page.idPage}`),
          call('GET', `/page/group/find/byId/?idPageGroup=${group.idPageGroup}`),
          call('GET', `/condition/find/byId/?idCondition=${cond.idCondition}`),
          call('GET', `/trafficsource/find/byId/?idTrafficSource=${ts.idTrafficSource}`),
          call('GET', `/category/find/byId/?idCategory=${cat.idCategory}`),
        ]).then((all) => all.map((r) => r.body));
      const before = await reads();
      expect(before.map((r) => r.status)).toEqual(Array(6).fill('active'));

      await d().stop();
      // An event of an older version, whose category record named the UI object `uiSettings`.
      const legacyId = newId();
      const log = new Database(join(d().dataDir, 'events.sqlite'));
      try {
        log.prepare('INSERT INTO events (stream_name, revision, event_id, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          `category-${me.accountId}.${legacyId}`,
          0,
          randomUUID(),
          'CategoryCreated',
          JSON.stringify({
            record: { idCategory: legacyId, categoryName: 'Legacy', categoryType: 'offerGroup', status: 'active', uiSettings: { open: true } },
          }),
          JSON.stringify({ accountId: me.accountId, actorId: 'legacy', correlationId: 'legacy', occurredAt: new Date().toISOString(), schemaVersion: 1 }),
          Date.now(),
        );
      } finally {
        log.close();
      }
      await d().restart();

      expect(await reads()).toEqual(before);
      const legacy = await call('GET', `/category/find/byId/?idCategory=${legacyId}`);
      expect(legacy.body).toEqual({
        idCategory: legacyId,
        categoryName: 'Legacy',
        categoryType: 'offerGroup',
        status: 'active',
        meta: { open: true },
        owner: me.accountId,
      });
      // The upcast record is the one updates start from, and assets can be placed in it.
      ok(await call('PUT', '/pagegroup/move-category/', { body: { entries: [group.idPageGroup], idCategory: legacyId } }));
      expect((await call('GET', `/pagegroup/find/byCategory/?idCategory=${legacyId}&categoryType=offerGroup`)).body).toEqual([
        { ...before[2], idCategory: legacyId, categoryName: 'Legacy' },
      ]);
      ok(await call('PUT', '/category/save/', { body: { ...legacy.body, categoryName: 'Legacy 2' } }));
      expect((await call('GET', `/category/find/byId/?idCategory=${legacyId}`)).body).toEqual({ ...legacy.body, categoryName: 'Legacy 2' });
    });
  });
});
