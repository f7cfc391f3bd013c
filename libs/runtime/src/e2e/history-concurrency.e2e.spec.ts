import { ASSET_KINDS, generateAssetId } from '@funnel/contracts';
import { ADMIN, Deployment, describeInBothModes } from './harness';

// Issue 14's change history, edit conflicts and pagination end to end, in standalone and distributed
// mode: a funnel's history through create, update and archive (changes by path, secrets masked,
// who wrote each event, paging), the legacy campaign view's history, find/byId's ETag and If-Match on
// writes (a racing editor gets 412 naming the current revision), and lists walked page by page
// while other assets are created (every asset that existed throughout found exactly once).

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };
type Response = Awaited<ReturnType<Deployment['api']['call']>>;

const newId = () => generateAssetId();

function ok(res: Response, what = ''): Response {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

/** Runs `work` over `items` with at most `width` at a time. */
async function inPool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]);
    }),
  );
}

const node = (nodeType: string, params: Body = {}) => ({ idNode: newId(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
const link = (from: Body, to: Body, params: Body) => ({ idConnection: newId(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });

describeInBothModes('/v1 change history, edit conflicts and pagination', (d) => {
  let me: Account;
  let other: Account;
  const call = (method: string, path: string, options: { body?: unknown; key?: string; headers?: Record<string, string> } = {}) =>
    d().api.call(method, path, { key: me.apiKey, ...options });
  const save = async (prefix: string, body: Body) => {
    ok(await call('POST', `${prefix}/save/`, { body }), `POST ${prefix}/save/`);
    return body;
  };

  beforeAll(async () => {
    [me, other] = await Promise.all([d().newAccount(`hist-${newId()}@example.com`), d().newAccount(`hist-other-${newId()}@example.com`)]);
  });

  describe('history', () => {
    it("answers a funnel's events newest first with the changes each made, who made it, and its secrets masked, paged by limit and beforeRevision", async () => {
      const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Spring' });
      const config = await save('/middlewareconfig', {
        idMiddlewareConfig: newId(),
        middlewareConfigName: 'Fraud check',
        routes: [{ idRoute: 'fraud', priority: 10 }],
        destination: { url: 'https://mw.example.com/score' },
      });
      const [firstSecret, secondSecret] = [`hmac-${newId()}-${newId()}`, `hmac-${newId()}-${newId()}`];
      const root = node('root');
      const middleware = node('middleware', {
        nodeMiddlewareRefParams: { idMiddlewareConfig: config.idMiddlewareConfig, destinationOverrides: { hmacSecret: firstSecret } },
      });
      const exit = node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks' } });
      const funnel = await save('/funnel', {
        idFunnel: newId(),
        idFunnelGroup: group.idFunnelGroup,
        funnelName: 'Spring sale',
        nodes: [root, middleware, exit],
        connections: [
          link(root, middleware, { connectionRotatorParams: { weight: 1 } }),
          link(middleware, exit, { connectionMiddlewareParams: { onRouteId: 'default' } }),
        ],
      });

      const read = ok(await call('GET', `/funnel/find/byId/?idFunnel=${funnel.idFunnel}`));
      expect(read.headers.get('etag')).toBe('W/"0"');
      const edited = {
        ...read.body,
        funnelName: 'Summer sale',
        nodes: read.body.nodes.map((n: Body, i: number) =>
          i === 1
            ? { ...n, nodeName: 'Score', nodeMiddlewareRefParams: { ...n.nodeMiddlewareRefParams, destinationOverrides: { hmacSecret: secondSecret } } }
            : n,
        ),
      };
      ok(await call('PUT', '/funnel/save/', { body: edited, headers: { 'if-match': 'W/"0"' } }), 'update');
      ok(await call('PUT', '/funnel/archive/', { body: { entries: [funnel.idFunnel] }, headers: { 'if-match': 'W/"1"' } }), 'archive');

      const history = ok(await call('GET', `/funnel/history/?idFunnel=${funnel.idFunnel}`));
      expect(history.body.map((e: Body) => [e.revision, e.type])).toEqual([
        [2, 'FunnelArchived'],
        [1, 'FunnelUpdated'],
        [0, 'FunnelCreated'],
      ]);
      for (const entry of history.body) {
        expect(entry.actor).toEqual({ userId: expect.any(String), keyId: expect.any(String) });
        expect(Number.isNaN(Date.parse(entry.occurredAt))).toBe(false);
      }
      const [archived, updated, created] = history.body;
      expect(archived.changes).toEqual([{ path: 'status', from: 'active', to: 'archived' }]);
      expect(updated.changes).toEqual(
        expect.arrayContaining([
          { path: 'funnelName', from: 'Spring sale', to: 'Summer sale' },
          { path: 'nodes[1].nodeName', from: 'middleware', to: 'Score' },
          { path: 'nodes[1].nodeMiddlewareRefParams.destinationOverrides.hmacSecret', from: '********', to: '********' },
        ]),
      );
      expect(updated.changes).toHaveLength(3);
      expect(created.changes).toEqual(
        expect.arrayContaining([
          { path: 'funnelName', from: null, to: 'Spring sale' },
          { path: 'nodes', from: null, to: expect.arrayContaining([expect.objectContaining({ nodeType: 'middleware' })]) },
        ]),
      );
      const createdNodes = created.changes.find((c: Body) => c.path === 'nodes').to;
      expect(createdNodes[1].nodeMiddlewareRefParams.destinationOverrides).toEqual({ hmacSecret: '********' });
      for (const secret of [firstSecret, secondSecret, 'aes-256-gcm']) expect(history.text).not.toContain(secret);

      const page = async (query: string) => ok(await call('GET', `/funnel/history/?idFunnel=${funnel.idFunnel}&${query}`)).body.map((e: Body) => e.revision);
      expect(await page('limit=1')).toEqual([2]);
      expect(await page('limit=1&beforeRevision=2')).toEqual([1]);
      expect(await page('beforeRevision=1')).toEqual([0]);
      expect(await page('beforeRevision=0')).toEqual([]);

      // The group's history is served under its own path and the legacy campaign view's, which names the fields its way.
      const groupHistory = ok(await call('GET', `/funnelgroup/history/?idFunnelGroup=${group.idFunnelGroup}`)).body;
      expect(groupHistory).toEqual([expect.objectContaining({ revision: 0, type: 'FunnelGroupCreated' })]);
      const paths = (entries: Body[]) => entries[0].changes.map((c: Body) => c.path);
      expect(paths(groupHistory)).toEqual(expect.arrayContaining(['idFunnelGroup', 'funnelGroupName']));
      const campaignHistory = ok(await call('GET', `/campaign/history/?idCampaign=${group.idFunnelGroup}`)).body;
      expect(paths(campaignHistory)).toEqual(
        paths(groupHistory).map((p: string) => ({ idFunnelGroup: 'idCampaign', funnelGroupName: 'campaignName' })[p] ?? p),
      );
      expect(campaignHistory[0].changes.find((c: Body) => c.path === 'campaignName').to).toBe(group.funnelGroupName);

      // Account-scoped, and bad parameters are 400s.
      expect((await call('GET', `/funnel/history/?idFunnel=${funnel.idFunnel}`, { key: other.apiKey })).status).toBe(404);
      expect((await call('GET', `/funnel/history/?idFunnel=${newId()}`)).body.code).toBe('ASSET.NOT_FOUND');
      for (const query of ['limit=0', 'limit=201', 'limit=ten', 'beforeRevision=-1']) {
        const bad = await call('GET', `/funnel/history/?idFunnel=${funnel.idFunnel}&${query}`);
        expect([bad.status, bad.body.details[0].field]).toEqual([400, query.split('=')[0]]);
      }
      expect((await call('GET', '/funnel/history/')).status).toBe(400);
      expect((await call('GET', `/funnel/history/?idFunnel=${funnel.idFunnel}`, { key: '' })).status).toBe(401);
    });

    it('is served under every path of every kind (views with their id field), and records a token holder with no key id', async () => {
      for (const kind of ASSET_KINDS) {
        const prefixes = [
          ...kind.paths.map((p) => [p, kind.idField]),
          ...(kind.views ?? []).flatMap((v) => v.paths.map((p) => [p, v.fieldNames[kind.idField] ?? kind.idField])),
        ];
        for (const [prefix, idField] of prefixes) {
          const missing = await call('GET', `${prefix}/history/?${idField}=${newId()}`);
          expect([prefix, missing.status, missing.body.code]).toEqual([prefix, 404, 'ASSET.NOT_FOUND']);
        }
      }
      const login = ok(await d().api.call('POST', '/auth/login', { key: '', body: { username: ADMIN.email, password: ADMIN.password } }), 'login');
      const bearer = { key: '', headers: { authorization: `Bearer ${login.body.tokens.access_token}` } };
      const idTag = newId();
      ok(await d().api.call('POST', '/visitortag/save/', { ...bearer, body: { idTag, tagName: 'By token' } }), 'save with a token');
      ok(await d().api.call('PUT', '/visitortag/save/', { body: { idTag, tagName: 'By key' } }), 'save with a key');
      const history = ok(await d().api.call('GET', `/visitortag/history/?idTag=${idTag}`, bearer)).body;
      expect(history.map((e: Body) => e.type)).toEqual(['VisitorTagUpdated', 'VisitorTagCreated']);
      expect(history[1].actor).toEqual({ userId: history[0].actor.userId, keyId: null });
      expect(history[0].actor.keyId).toEqual(expect.any(String));
      expect(history[0].changes).toEqual([{ path: 'tagName', from: 'By token', to: 'By key' }]);
    });
  });

  describe('edit conflicts', () => {
    it('answers find/byId with the revision as a weak ETag, the body unchanged', async () => {
      const tag = await save('/visitortag', { idTag: newId(), tagName: 'First' });
      const first = ok(await call('GET', `/visitortag/find/byId/?idTag=${tag.idTag}`));
      expect(first.headers.get('etag')).toBe('W/"0"');
      expect(first.body).not.toHaveProperty('revision');
      ok(await call('PUT', '/visitortag/save/', { body: { ...tag, tagName: 'Second' } }));
      expect(ok(await call('GET', `/visitortag/find/byId/?idTag=${tag.idTag}`)).headers.get('etag')).toBe('W/"1"');
      expect((await call('HEAD', `/visitortag/find/byId/?idTag=${tag.idTag}`)).headers.get('etag')).toBe('W/"1"');
      expect(ok(await call('GET', '/visitortag/list/')).headers.get('etag')).toBeNull();
    });

    it('lets one of two editors racing with the same If-Match win; the other gets 412 naming the current revision', async () => {
      const source = await save('/trafficsource', { idTrafficSource: newId(), trafficSourceName: 'Ads' });
      const etag = ok(await call('GET', `/trafficsource/find/byId/?idTrafficSource=${source.idTrafficSource}`)).headers.get('etag')!;
      const edits = ['Alice', 'Bob'].map((editor) =>
        call('PUT', '/trafficsource/save/', { body: { ...source, trafficSourceName: `Ads by ${editor}` }, headers: { 'if-match': etag } }),
      );
      const answers = await Promise.all(edits);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412]);
      const lost = answers.find((a) => a.status === 412)!;
      expect(lost.body.code).toBe('ASSET.REVISION_MISMATCH');
      expect(lost.body.details).toEqual([expect.objectContaining({ field: 'If-Match', message: expect.stringContaining('current revision is 1') })]);
      const winner = answers[0].status === 200 ? 'Alice' : 'Bob';
      const now = ok(await call('GET', `/trafficsource/find/byId/?idTrafficSource=${source.idTrafficSource}`));
      expect([now.body.trafficSourceName, now.headers.get('etag')]).toEqual([`Ads by ${winner}`, 'W/"1"']);

      // Archive, unarchive and delete with a stale revision are refused and change nothing; the current one (weak or strong form) passes.
      const entries = { entries: [source.idTrafficSource] };
      for (const [method, path] of [
        ['PUT', 'archive'],
        ['PUT', 'unarchive'],
        ['DELETE', 'delete'],
      ]) {
        const stale = await call(method, `/trafficsource/${path}/`, { body: entries, headers: { 'if-match': 'W/"0"' } });
        expect([stale.status, stale.body.code]).toEqual([412, 'ASSET.REVISION_MISMATCH']);
      }
      expect(ok(await call('GET', `/trafficsource/find/byId/?idTrafficSource=${source.idTrafficSource}`)).body.status).toBe('active');
      ok(await call('PUT', '/trafficsource/archive/', { body: entries, headers: { 'if-match': '"1"' } }), 'archive at the current revision');
      ok(await call('PUT', '/trafficsource/unarchive/', { body: entries, headers: { 'if-match': 'W/"2"' } }), 'unarchive');
      // Without If-Match, as before.
      ok(await call('PUT', '/trafficsource/save/', { body: { ...source, trafficSourceName: 'Plain' } }), 'unconditional save');

      // If-Match names one asset: a bulk write with it takes exactly one entry; a malformed one is a 400.
      const bulk = await call('PUT', '/trafficsource/archive/', { body: { entries: [source.idTrafficSource, newId()] }, headers: { 'if-match': 'W/"4"' } });
      expect([bulk.status, bulk.body.details[0].field]).toEqual([400, 'If-Match']);
      const malformed = await call('PUT', '/trafficsource/save/', { body: source, headers: { 'if-match': 'W/4' } });
      expect([malformed.status, malformed.body.details[0].field]).toEqual([400, 'If-Match']);
      ok(await call('DELETE', '/trafficsource/delete/', { body: entries, headers: { 'if-match': 'W/"4"' } }), 'delete at the current revision');
    });

    it('checks If-Match on a funnel move and on the legacy campaign save', async () => {
      const [from, to] = [
        await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'From' }),
        await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'To' }),
      ];
      const funnel = await save('/funnel', { idFunnel: newId(), idFunnelGroup: from.idFunnelGroup, funnelName: 'Solo' });
      const move = (ifMatch: string) =>
        call('PUT', '/funnel/move/', { body: { entries: [funnel.idFunnel], idFunnelGroup: to.idFunnelGroup }, headers: { 'if-match': ifMatch } });
      expect((await move('W/"3"')).status).toBe(412);
      ok(await move('W/"0"'), 'move');
      expect(ok(await call('GET', `/funnel/find/byId/?idFunnel=${funnel.idFunnel}`)).body.idFunnelGroup).toBe(to.idFunnelGroup);

      const campaign = ok(await call('GET', `/campaign/find/byId/?idCampaign=${from.idFunnelGroup}`));
      expect(campaign.headers.get('etag')).toBe('W/"0"');
      const rename = (ifMatch: string) =>
        call('PUT', '/campaign/save/', { body: { idCampaign: from.idFunnelGroup, campaignName: 'Renamed' }, headers: { 'if-match': ifMatch } });
      expect((await rename('W/"1"')).status).toBe(412);
      expect((await rename('W/"0"')).status).toBe(200);
    });
  });

  describe('pagination', () => {
    it('walks 2,500 assets in pages of 100 while others are created, finding each that existed exactly once', async () => {
      const walker = await d().newAccount(`walk-${newId()}@example.com`);
      const as = (method: string, path: string, body?: unknown) => d().api.call(method, path, { key: walker.apiKey, body });
      const existing = Array.from({ length: 2500 }, () => newId());
      await inPool(existing, 16, async (idTag) => {
        ok(await as('POST', '/visitortag/save/', { idTag, tagName: `Tag ${idTag}` }), 'create');
      });

      let creating = true;
      const createdMeanwhile: string[] = [];
      const writer = (async () => {
        while (creating) {
          const idTag = newId();
          ok(await as('POST', '/visitortag/save/', { idTag, tagName: `Late ${idTag}` }), 'concurrent create');
          createdMeanwhile.push(idTag);
        }
      })();
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      try {
        do {
          const page = ok(await as('GET', `/visitortag/list/?status=all&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`), 'page');
          expect(Array.isArray(page.body)).toBe(true);
          expect(page.body.length).toBeLessThanOrEqual(100);
          seen.push(...page.body.map((t: Body) => t.idTag));
          cursor = page.headers.get('x-next-cursor');
          pages++;
        } while (cursor);
      } finally {
        creating = false;
        await writer;
      }
      const counts = new Map<string, number>();
      for (const id of seen) counts.set(id, (counts.get(id) ?? 0) + 1);
      expect(existing.filter((id) => counts.get(id) !== 1)).toEqual([]);
      expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
      expect(seen).toEqual([...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(pages).toBeGreaterThanOrEqual(25);
      expect(createdMeanwhile.length).toBeGreaterThan(0);

      // Without limit the answer is whole, as before, and carries no cursor.
      const whole = ok(await as('GET', '/visitortag/list/?status=all'));
      expect(whole.body.length).toBe(2500 + createdMeanwhile.length);
      expect(whole.headers.get('x-next-cursor')).toBeNull();
    });

    it('pages find/byStatus, find/byIds, find/byCategory and find/byName the same way', async () => {
      const category = await save('/category', { idCategory: newId(), categoryName: 'Paged', categoryType: 'logicscript' });
      const ids = Array.from({ length: 5 }, () => newId()).sort();
      for (const idLogicScript of ids)
        await save('/logicscript', { idLogicScript, logicScriptName: 'Same name', idCategory: category.idCategory, code: 'return "default"' });
      const walk = async (path: string, idField: string) => {
        const found: string[][] = [];
        let cursor: string | null = null;
        do {
          const page = ok(await call('GET', `${path}&limit=2${cursor ? `&cursor=${cursor}` : ''}`), path);
          found.push(page.body.map((r: Body) => r[idField]));
          cursor = page.headers.get('x-next-cursor');
        } while (cursor);
        return found;
      };
      const expected = [ids.slice(0, 2), ids.slice(2, 4), ids.slice(4)];
      expect(await walk(`/logicscript/find/byCategory/?idCategory=${category.idCategory}`, 'idLogicScript')).toEqual(expected);
      expect(await walk(`/logicscript/find/byName/?name=Same%20name`, 'idLogicScript')).toEqual(expected);
      expect(await walk(`/logicscript/find/byIds/?idLogicScripts=${[...ids].reverse().join(',')},${newId()}`, 'idLogicScript')).toEqual(expected);
      const byStatus = (await walk('/logicscript/find/byStatus/?status=all', 'idLogicScript')).flat();
      expect(byStatus.filter((id) => ids.includes(id))).toEqual(ids);
    });

    it('refuses a bad limit or cursor with a 400 naming it', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=1.5', 'limit'],
        ['cursor=%21%21', 'cursor'],
        [`cursor=${Buffer.from('not an id').toString('base64url')}`, 'cursor'],
      ]) {
        const bad = await call('GET', `/visitortag/list/?${query}`);
        expect([bad.status, bad.body.code, bad.body.details[0].field]).toEqual([400, 'REQUEST.VALIDATION_FAILED', field]);
      }
      expect((await call('GET', `/visitortag/find/byIds/?idTags=${newId()}&limit=5000`)).status).toBe(400);
    });
  });
});
