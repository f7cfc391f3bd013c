// The visitor routes over HTTP (Fastify's inject) with the real engine, visitor resolver and embedded
// session store; the snapshot and the hit sink are fakes that the tests steer.
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import type { Hit } from '@funnel/reporting-domain';
import { type CompiledFunnel, type FunnelAssets, compileFunnel } from '@funnel/routing';
import { tempDir } from '@funnel/testing';
import { entranceTokenOf } from '@funnel/edge-domain';
import { landerGroup, nid, rid, tinyFunnel } from '../../../../routing/src/testing';
import { SESSION_STORE_FILE, SqliteSessionStore } from '../sessions';
import type { HitSink } from '../hits';
import { VisitorResolver } from '../visitor';
import { createEdgeHttpApp } from './edge-http-app';
import { EdgeRouteMetrics } from './edge-route-metrics';
import { MIDDLEWARE_NOT_CALLED, VisitorLinks } from './visitor-links';

const ACCOUNT = 'acc-one';
const OTHER_ACCOUNT = 'acc-two';
const HOST = 'track.example.com';
const DEFAULT_DOMAIN = 'edge.example.net';
const SOURCE = rid('source');
const OTHER_SOURCE = rid('srcOther');

/** Root -> Landers (L, 307) -1-> Offers (O, 301) -1 (conversion)-> Thanks (external URL); Landers -2-> Hidden (umr lander); Landers -3-> Mw (middleware) -> Landers. */
function funnelAssets(idFunnel: string, status = 'active'): FunnelAssets {
  const landerParts = landerGroup('L', 'https://lp.example.com/l?hit={hit}&v={visitor}&c={campaign}&n={current-node-id}');
  const landers = { pageGroups: landerParts.pageGroups, pages: [{ ...landerParts.pages[0], redirectType: '307' }] };
  const hiddenParts = landerGroup('H', 'https://hidden.example.com/h?v={visitor}');
  const hidden = { pageGroups: hiddenParts.pageGroups, pages: [{ ...hiddenParts.pages[0], redirectType: 'umr' }] };
  const assets = tinyFunnel(
    [
      { name: 'Root', type: 'root' },
      { name: 'Landers', type: 'landerGroup', params: { nodePageGroupParams: { idPageGroup: rid('pgL') } } },
      { name: 'Offers', type: 'offerGroup', params: { nodePageGroupParams: { idPageGroup: rid('pgO') } } },
      { name: 'Hidden', type: 'landerGroup', params: { nodePageGroupParams: { idPageGroup: rid('pgH') } } },
      { name: 'Thanks', type: 'externalUrl', params: { nodeExternalUrlParams: { url: 'https://example.com/thanks?v={visitor}' } } },
      { name: 'Mw', type: 'middleware', params: { nodeMiddlewareParams: { idMiddlewareConfig: rid('mw') } } },
    ],
    [
      { from: 'Root', to: 'Landers', params: { connectionRotatorParams: { weight: 1 } } },
      { from: 'Landers', to: 'Offers', params: { connectionPageParams: { onActionNumber: 1 } } },
      { from: 'Offers', to: 'Thanks', params: { connectionPageParams: { onActionNumber: 1, isConversion: true } } },
      { from: 'Landers', to: 'Hidden', params: { connectionPageParams: { onActionNumber: 2 } } },
      { from: 'Landers', to: 'Mw', params: { connectionPageParams: { onActionNumber: 3 } } },
      { from: 'Mw', to: 'Hidden', params: { connectionMiddlewareParams: { onRouteId: 'default' } } },
    ],
    {
      pageGroups: [...landers.pageGroups, ...hidden.pageGroups, { idPageGroup: rid('pgO'), pageType: 'offer', pages: [{ idPage: rid('pO'), weight: 100 }] }],
      pages: [
        ...landers.pages,
        ...hidden.pages,
        {
          idPage: rid('pO'),
          pageType: 'offer',
          pageName: 'Offer',
          baseURL: 'https://offer.example.net/o',
          redirectType: '301',
          offerParams: { idOfferSource: rid('os'), payout: 2 },
        },
      ],
      offerSources: [{ idOfferSource: rid('os'), offerSourceName: 'Net', queryParams: { sub1: '{hit}' } }],
      middlewareConfigs: [{ idMiddlewareConfig: rid('mw'), middlewareConfigName: 'Mw', destination: { url: 'https://mw.example.com/' }, routes: [] }],
      trafficSources: [
        {
          idTrafficSource: SOURCE,
          trafficSourceName: 'Ads',
          defaultCost: '0.01',
          trackingFieldSlots: { campaign: { name: 'campaign', value: '{campaign}', previousName: '', status: 'active' } },
        },
      ],
    },
    { idFunnel, status },
  );
  return assets;
}

const FUNNEL = rid('funnelLive');
const ARCHIVED = rid('funnelArch');
const FOREIGN = rid('funnelFrgn');

class FakeSink implements HitSink {
  hits: Hit[] = [];
  failing = false;
  async record(hits: readonly Hit[]): Promise<void> {
    if (this.failing) throw new Error('the stream HITS is unreachable');
    this.hits.push(...hits);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('the visitor routes', () => {
  const dir = tempDir('edge-routes');
  let sessions: SqliteSessionStore;
  const sink = new FakeSink();
  let app: FastifyInstance;
  let registry: Registry;
  let serving = true;
  const funnels = new Map<string, CompiledFunnel>([
    [`${ACCOUNT}/${FUNNEL}`, compileFunnel(funnelAssets(FUNNEL))],
    [`${ACCOUNT}/${ARCHIVED}`, compileFunnel(funnelAssets(ARCHIVED, 'archived'))],
    [`${OTHER_ACCOUNT}/${FOREIGN}`, compileFunnel(funnelAssets(FOREIGN))],
  ]);
  const snapshot = {
    funnel: (account: string, idFunnel: string) => funnels.get(`${account}/${idFunnel}`),
    asset: (account: string, kind: string, id: string) =>
      kind === 'trafficsource' && ((account === ACCOUNT && id === SOURCE) || (account === OTHER_ACCOUNT && id === OTHER_SOURCE))
        ? { idTrafficSource: id }
        : undefined,
    accountOfDomain: (host: string) => (host === HOST ? ACCOUNT : undefined),
  };

  beforeAll(async () => {
    sessions = new SqliteSessionStore({ filename: join(dir.path, SESSION_STORE_FILE), ttlMs: 3_600_000 });
    registry = new Registry();
    const links = new VisitorLinks({
      snapshot,
      sessions,
      hits: sink,
      visitors: await VisitorResolver.open({ geoDatabases: [], networkDatabases: [], userAgentCacheSize: 10 }),
      defaultDomain: DEFAULT_DOMAIN,
      metrics: new EdgeRouteMetrics(registry),
      logger: { warn: () => undefined },
    });
    app = createEdgeHttpApp({
      links,
      registry,
      readiness: [{ name: 'snapshot', check: () => serving }],
      serving: () => serving,
      checkToken: 'check-token-1',
      limits: { maxUrlBytes: 8192, maxHeaderBytes: 16_384 },
    });
    await app.ready();
  });
  afterAll(async () => {
    await app.close();
    await sessions.close();
    dir.remove();
  });
  beforeEach(() => {
    sink.hits = [];
    sink.failing = false;
    serving = true;
  });

  const get = (url: string, host = HOST, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { host, ...headers } });
  const token = entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE });
  /** Enters the live funnel; answers the lander's URL and the visitor id. */
  async function enter(query = 'campaign=spring&cost=0.5'): Promise<{ location: URL; vid: string }> {
    const res = await get(`/fts/${token}?${query}`);
    expect(res.statusCode).toBe(307);
    const location = new URL(res.headers.location as string);
    return { location, vid: location.searchParams.get('vid')! };
  }

  it('routes an entrance to the lander: 307 as the page says, tokens resolved, vid added, hits recorded and the session kept', async () => {
    const res = await get(`/fts/${token}?campaign=spring&cost=0.5`, HOST, { 'user-agent': 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)' });
    expect(res.statusCode).toBe(307);
    expect(res.headers['cache-control']).toBe('no-store');
    const location = new URL(res.headers.location as string);
    expect(`${location.origin}${location.pathname}`).toBe('https://lp.example.com/l');
    const vid = location.searchParams.get('vid')!;
    expect(vid).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(location.searchParams.get('v')).toBe(vid);
    expect(location.searchParams.get('c')).toBe('spring');
    expect(location.searchParams.get('n')).toBe(nid('Landers'));
    expect(sink.hits.map((hit) => [hit.idNode, hit.isEntrance, hit.cost, hit.accountId, hit.visitorId])).toEqual([
      [nid('Root'), true, '0.5', ACCOUNT, vid],
      [nid('Landers'), false, '0', ACCOUNT, vid],
    ]);
    expect(location.searchParams.get('hit')).toBe(sink.hits[1].hitId);
    expect(sink.hits[0].trackingFields).toEqual({ campaign: 'spring' });
    expect(sink.hits[0].visitor.deviceType).toBe('mobile');
    expect(await sessions.get(ACCOUNT, vid)).toMatchObject({ currentNode: nid('Landers'), lastHitId: sink.hits[1].hitId, idFunnel: FUNNEL });
    expect(await sessions.get(OTHER_ACCOUNT, vid)).toBeNull();
  });

  it('takes the source default cost without a cost in the link, and continues the session named by vid', async () => {
    const first = await enter();
    sink.hits = [];
    const again = await enter(`vid=${first.vid}`);
    expect(again.vid).toBe(first.vid);
    expect(sink.hits[0]).toMatchObject({ isEntrance: true, cost: '0.01', visitorId: first.vid });
  });

  it('serves the same links on the default domain under /a/<accountId>/, and no other account through a custom domain', async () => {
    expect((await get(`/a/${ACCOUNT}/fts/${token}`, DEFAULT_DOMAIN)).statusCode).toBe(307);
    expect((await get(`/a/${OTHER_ACCOUNT}/fts/${entranceTokenOf({ idFunnel: FOREIGN, idTrafficSource: OTHER_SOURCE })}`, DEFAULT_DOMAIN)).statusCode).toBe(
      307,
    );
    expect((await get(`/a/${OTHER_ACCOUNT}/fts/${entranceTokenOf({ idFunnel: FOREIGN, idTrafficSource: OTHER_SOURCE })}`, HOST)).statusCode).toBe(404);
    expect((await get(`/fts/${token}`, DEFAULT_DOMAIN)).statusCode).toBe(404);
    expect((await get(`/fts/${token}`, 'unknown.example.org')).statusCode).toBe(404);
  });

  it.each([
    ['a malformed token', '/fts/not-a-token'],
    ['a token too short', `/fts/${FUNNEL}`],
    ['an unknown funnel', `/fts/${entranceTokenOf({ idFunnel: rid('nope'), idTrafficSource: SOURCE })}`],
    ['an archived funnel', `/fts/${entranceTokenOf({ idFunnel: ARCHIVED, idTrafficSource: SOURCE })}`],
    ["another account's funnel", `/fts/${entranceTokenOf({ idFunnel: FOREIGN, idTrafficSource: OTHER_SOURCE })}`],
    ["another account's traffic source", `/fts/${entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: OTHER_SOURCE })}`],
    ['a node not in the funnel', `/fts/${entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: rid('nope') })}`],
    ['an unknown path', '/admin'],
  ])('answers %s with the 404 page, recording nothing', async (_what, url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('Link not found');
    expect(res.body).not.toMatch(/funnel|stack|Error/);
    expect(sink.hits).toEqual([]);
  });

  it('enters at the node the token names', async () => {
    const res = await get(`/fts/${entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: nid('Offers') })}`);
    expect(res.statusCode).toBe(301);
    expect(res.headers.location).toMatch(/^https:\/\/offer\.example\.net\/o\?/);
    expect(sink.hits.map((hit) => [hit.idNode, hit.isEntrance])).toEqual([[nid('Offers'), true]]);
  });

  it('follows action 1 to the offer (301 as its page says), with the action and the previous hit on its hit', async () => {
    const { vid } = await enter();
    const landerHit = sink.hits[1].hitId;
    sink.hits = [];
    const res = await get(`/action/1?vid=${vid}&sub=x`);
    expect(res.statusCode).toBe(301);
    const location = new URL(res.headers.location as string);
    expect(location.searchParams.get('vid')).toBe(vid);
    expect(location.searchParams.get('sub1')).toBe(sink.hits[sink.hits.length - 1].hitId);
    expect(sink.hits.map((hit) => [hit.idNode, hit.action, hit.previousHitId])).toEqual([[nid('Offers'), 1, landerHit]]);
    expect(await sessions.get(ACCOUNT, vid)).toMatchObject({ currentNode: nid('Offers'), urlBuffer: expect.objectContaining({ sub: 'x' }) });
  });

  it('converts with the conversion action from the offer: 302 to the external URL', async () => {
    const { vid } = await enter();
    await get(`/action/1?vid=${vid}`);
    sink.hits = [];
    const res = await get(`/action/1?vid=${vid}`);
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`https://example.com/thanks?v=${vid}&vid=${vid}`);
    expect(sink.hits.map((hit) => [hit.idNode, hit.nodeType, hit.action])).toEqual([[nid('Thanks'), 'externalUrl', 1]]);
  });

  it('answers a umr page with a referrer-hiding meta refresh (200)', async () => {
    const { vid } = await enter();
    const res = await get(`/action/2?vid=${vid}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.body).toContain('<meta name="referrer" content="no-referrer">');
    expect(res.body).toContain(`<meta http-equiv="refresh" content="0;url=https://hidden.example.com/h?v=${vid}&amp;vid=${vid}">`);
  });

  it('takes the default route at a middleware node when the edge has no middleware caller, and records no call', async () => {
    expect(MIDDLEWARE_NOT_CALLED).toContain('no middleware destination');
    const { vid } = await enter();
    sink.hits = [];
    const res = await get(`/action/3?vid=${vid}`);
    expect(res.statusCode).toBe(200);
    expect(sink.hits.map((hit) => hit.idNode)).toEqual([nid('Mw'), nid('Hidden')]);
    expect(sink.hits.map((hit) => hit.middleware)).toEqual([undefined, undefined]);
  });

  it.each([
    ['action 0', '/action/0?vid=x'],
    ['action 65', '/action/65?vid=x'],
    ['action abc', '/action/abc?vid=x'],
    ['action 01', '/action/01?vid=x'],
  ])('answers %s with the 404 page', async (_what, url) => {
    expect((await get(url)).statusCode).toBe(404);
  });

  it('answers an action without a session (no vid, an unknown one, a malformed one) with the 404 page', async () => {
    for (const url of ['/action/1', '/action/1?vid=unknownVisitor', '/action/1?vid=bad.vid', `/action/1?vid=${'x'.repeat(200)}`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(404);
      expect(res.body).toContain('Your visit has expired');
    }
    expect(sink.hits).toEqual([]);
  });

  it('answers HEAD (link checkers, previewers) without a walk: nothing counted, no session, no rotation advanced', async () => {
    const head = (url: string, host = HOST) => app.inject({ method: 'HEAD', url, headers: { host } });
    const entrance = await head(`/fts/${token}?campaign=spring`);
    expect(entrance.statusCode).toBe(200);
    expect(entrance.headers.location).toBeUndefined();
    expect(entrance.headers['cache-control']).toBe('no-store');
    expect((await head(`/a/${ACCOUNT}/fts/${token}`, DEFAULT_DOMAIN)).statusCode).toBe(200);
    expect((await head(`/fts/${entranceTokenOf({ idFunnel: ARCHIVED, idTrafficSource: SOURCE })}`)).statusCode).toBe(404);
    expect((await head('/fts/not-a-token')).statusCode).toBe(404);
    expect(sink.hits).toEqual([]);
    const { vid } = await enter();
    sink.hits = [];
    const before = await sessions.get(ACCOUNT, vid);
    expect((await head(`/action/1?vid=${vid}`)).statusCode).toBe(200);
    expect((await head('/action/1?vid=unknownVisitor')).statusCode).toBe(404);
    expect((await head(`/action/x?vid=${vid}`)).statusCode).toBe(404);
    expect(sink.hits).toEqual([]);
    expect(await sessions.get(ACCOUNT, vid)).toEqual(before);
  });

  it('answers an action the page does not have with the 404 page', async () => {
    const { vid } = await enter();
    const res = await get(`/action/9?vid=${vid}`);
    expect(res.statusCode).toBe(404);
    expect(res.body).toContain('not available from the page you came from');
  });

  it('answers 503, never a redirect, when the hits cannot be made durable', async () => {
    sink.failing = true;
    const res = await get(`/fts/${token}`);
    expect(res.statusCode).toBe(503);
    expect(res.headers.location).toBeUndefined();
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body).not.toContain('HITS');
  });

  it('answers 503 while the snapshot is not loaded, and /health/ready says so', async () => {
    serving = false;
    expect((await get(`/fts/${token}`)).statusCode).toBe(503);
    expect((await get('/health/ready')).statusCode).toBe(503);
    serving = true;
    expect((await get('/health/ready')).statusCode).toBe(200);
    expect((await get('/health/live')).statusCode).toBe(200);
  });

  describe('POST /js/funnel', () => {
    const post = (body: unknown, headers: Record<string, string> = {}, host = HOST, url = '/js/funnel') =>
      app.inject({
        method: 'POST',
        url,
        headers: { host, 'content-type': 'application/json', origin: 'https://lp.example.com', ...headers },
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      });

    it('answers the tokens of the page a redirected visitor is on, recording no new hit (the redirect was the view)', async () => {
      const { vid, location } = await enter();
      sink.hits = [];
      const res = await post({ url: location.href, vid });
      expect(res.statusCode).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.json()).toMatchObject({
        '{visitor}': vid,
        '{hit}': location.searchParams.get('hit'),
        '{current-node-id}': nid('Landers'),
        '{campaign}': 'spring',
      });
      expect(sink.hits).toEqual([]);
    });

    it('counts a no-redirect entrance at a lander node: hits, session and tokens from the page URL', async () => {
      const idToken = entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: nid('Landers') });
      const res = await post(JSON.stringify({ url: 'https://lp.example.com/l?campaign=direct', referrer: 'https://search.example/', token: idToken }), {
        'content-type': 'text/plain',
      });
      expect(res.statusCode).toBe(200);
      const tokens = res.json();
      expect(tokens).toMatchObject({ '{current-node-id}': nid('Landers'), '{campaign}': 'direct' });
      expect(sink.hits.map((hit) => [hit.idNode, hit.isEntrance, hit.hitId])).toEqual([[nid('Landers'), true, tokens['{hit}']]]);
      expect(sink.hits[0].visitor.referrer).toBe('https://search.example/');
      expect(await sessions.get(ACCOUNT, tokens['{visitor}'])).toMatchObject({ currentNode: nid('Landers') });
      // An action link from that page then works.
      expect((await get(`/action/1?vid=${tokens['{visitor}']}`)).statusCode).toBe(301);
    });

    it('refuses an entrance token without a lander or offer node, and unknown visitors', async () => {
      expect((await post({ url: 'https://lp.example.com/', token })).statusCode).toBe(404);
      expect(
        (await post({ url: 'https://lp.example.com/', token: entranceTokenOf({ idFunnel: FUNNEL, idTrafficSource: SOURCE, idNode: nid('Root') }) })).statusCode,
      ).toBe(404);
      expect((await post({ url: 'https://lp.example.com/', vid: 'nobodyKnown1' })).statusCode).toBe(404);
      expect(sink.hits).toEqual([]);
    });

    it.each([
      ['not JSON', '{'],
      ['an array', '[]'],
      ['no url', { vid: 'x' }],
      ['a url that is not http', { url: 'javascript:alert(1)', vid: 'x' }],
      ['neither vid nor token', { url: 'https://lp.example.com/' }],
      ['a number as vid', { url: 'https://lp.example.com/', vid: 5 }],
    ])('answers %s with 400 JSON', async (_what, body) => {
      const res = await post(body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.any(String) });
    });

    it('refuses a body over 16 KiB (413) and answers the CORS preflight', async () => {
      expect((await post({ url: 'https://lp.example.com/', vid: 'x'.repeat(17_000) })).statusCode).toBe(413);
      const preflight = await app.inject({ method: 'OPTIONS', url: '/js/funnel', headers: { host: HOST, origin: 'https://lp.example.com' } });
      expect(preflight.statusCode).toBe(204);
      expect(preflight.headers['access-control-allow-methods']).toContain('POST');
    });

    it('works on the default domain under /a/<accountId>/', async () => {
      const { vid } = await enter();
      expect((await post({ url: 'https://lp.example.com/', vid }, {}, DEFAULT_DOMAIN, `/a/${ACCOUNT}/js/funnel`)).statusCode).toBe(200);
    });
  });

  it('answers the domain check as billing expects it, with the check token', async () => {
    const res = await get('/debug/domain-check', 'Track.Example.com:443');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ service: 'funnel-edge', domain: 'track.example.com', token: 'check-token-1' });
  });

  it('answers a request target over the limit, or a path part longer than any link has, with 414', async () => {
    for (const url of [`/fts/${token}?q=${'x'.repeat(9000)}`, `/fts/${'x'.repeat(500)}`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(414);
      expect(res.body).not.toMatch(/stack|Error/);
    }
    expect(sink.hits).toEqual([]);
  });

  it('counts requests by route and outcome on /metrics', async () => {
    await get(`/fts/${token}`);
    const text = (await get('/metrics')).body;
    expect(text).toMatch(/edge_visitor_requests_total\{route="entrance",outcome="redirect"\} [1-9]/);
    expect(text).toMatch(/edge_visitor_requests_total\{route="entrance",outcome="not_found"\} [1-9]/);
    expect(text).toContain('edge_walk_duration_seconds_bucket');
  });
});
