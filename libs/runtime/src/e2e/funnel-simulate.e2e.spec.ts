import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateAssetId } from '@funnel/contracts';
import { Deployment, describeInBothModes } from './harness';

// Issue 21's simulator, POST /funnel/simulate/, end to end in standalone and distributed mode: a
// stored funnel walked from its entrance to a lander and on by an action to an offer (a conversion),
// an unsaved funnel, a condition routing by country, middleware answered from the request and by a
// call to a local server (allowed here by OUTBOUND_ALLOW_PRIVATE; refused without it), its 400s,
// another account's funnel (404) and the assets:read permission.

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };
type Response = Awaited<ReturnType<Deployment['api']['call']>>;

const newId = () => generateAssetId();
const HMAC_SECRET = 'middleware-hmac-secret-0123';

function ok(res: Response, what = ''): Response {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

/** The middleware server a user would run: checks the signature and basic auth, answers `{ route }` (its path names it). */
interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
let middlewareServer: Server;
let middlewarePort: number;

beforeAll(async () => {
  middlewareServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ path: req.url!, headers: req.headers, body });
      const signed = req.headers['x-signature'] === createHmac('sha256', HMAC_SECRET).update(body).digest('hex');
      if (!signed || req.headers.authorization !== `Basic ${Buffer.from('mw:mw-password').toString('base64')}`) return res.writeHead(401).end();
      if (req.url === '/fail') return res.writeHead(500).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ route: 'vip' }));
    });
  });
  await new Promise<void>((resolve) => middlewareServer.listen(0, '127.0.0.1', resolve));
  middlewarePort = (middlewareServer.address() as AddressInfo).port;
});

afterAll(async () => {
  middlewareServer.closeAllConnections();
  await new Promise((resolve) => middlewareServer.close(resolve));
});

const node = (nodeType: string, params: Body = {}, nodeName = nodeType) => ({ idNode: newId(), nodeName, nodeType, posX: 0.5, posY: 0.5, ...params });
const link = (from: Body, to: Body, params: Body = {}) => ({ idConnection: newId(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });
const weight = (w = 1) => ({ connectionRotatorParams: { weight: w } });
const keys = (...onRouteKeys: string[]) => ({ connectionLogicParams: { onRouteKeys } });
const action = (onActionNumber: number, isConversion = false) => ({ connectionPageParams: { onActionNumber, ...(isConversion ? { isConversion } : {}) } });
const TIME = '2025-03-01T18:30:00Z';
/** The decision a walked request took at a node. */
const decisionAt = (walked: Body, at: Body) => walked.steps.find((s: Body) => s.idNode === at.idNode)?.decision;
const german = { visitor: { country: 'DE', deviceType: 'mobile' }, trackingFields: { zone: '4411' }, time: TIME };

/** The assets of a funnel, stored in one account. */
async function storeAssets(call: (method: string, path: string, options?: { body?: unknown }) => Promise<Response>) {
  const save = async (prefix: string, body: Body) => {
    ok(await call('POST', `${prefix}/save/`, { body }), `POST ${prefix}/save/`);
    return body;
  };
  const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: `Spring ${newId()}` });
  const source = await save('/trafficsource', {
    idTrafficSource: newId(),
    trafficSourceName: 'Push network',
    defaultCost: '0.02',
    trackingFieldSlots: { c1: { name: 'zone', value: '{zone}' } },
  });
  const network = await save('/offersource', { idOfferSource: newId(), offerSourceName: 'Network' });
  const landerPage = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'Quiz A', baseURL: 'https://lp.example.com/quiz' });
  const usPage = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'US quiz', baseURL: 'https://us.example.com/quiz' });
  const offerPage = await save('/page', {
    idPage: newId(),
    pageType: 'offer',
    pageName: 'Sweeps DE',
    baseURL: 'https://offers.example.com/go',
    offerParams: { idOfferSource: network.idOfferSource, payout: 2.5 },
  });
  const landers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Quiz', pageType: 'lander', pages: [{ idPage: landerPage.idPage }] });
  const usLanders = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'US quiz', pageType: 'lander', pages: [{ idPage: usPage.idPage }] });
  const offers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Sweeps', pageType: 'offer', pages: [{ idPage: offerPage.idPage }] });
  const geo = await save('/condition', {
    idCondition: newId(),
    conditionName: 'Geo',
    routes: [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US'] }] }] }],
  });
  return { group, source, network, landerPage, usPage, offerPage, landers, usLanders, offers, geo };
}
type Assets = Awaited<ReturnType<typeof storeAssets>>;

/** root -> condition (us: the US landers, default: the landers) -> action 1 -> offers -> action 1 (a conversion) -> thanks. */
function geoFunnel(a: Assets) {
  const root = node('root', {}, 'Entrance');
  const geo = node('condition', { nodeConditionParams: { idCondition: a.geo.idCondition } }, 'Geo split');
  const landers = node('landerGroup', { nodePageGroupParams: { idPageGroup: a.landers.idPageGroup } }, 'Quiz landers');
  const usLanders = node('landerGroup', { nodePageGroupParams: { idPageGroup: a.usLanders.idPageGroup } }, 'US landers');
  const offers = node('offerGroup', { nodePageGroupParams: { idPageGroup: a.offers.idPageGroup } }, 'Sweeps offers');
  const thanks = node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks' } }, 'Thanks');
  const funnel = {
    idFunnel: newId(),
    idFunnelGroup: a.group.idFunnelGroup,
    funnelName: 'Spring sale',
    nodes: [root, geo, landers, usLanders, offers, thanks],
    connections: [
      link(root, geo, weight()),
      link(geo, usLanders, keys('us')),
      link(geo, landers, keys('default')),
      link(landers, offers, action(1)),
      link(usLanders, offers, action(1)),
      link(offers, thanks, action(1, true)),
    ],
  };
  return { funnel, nodes: { root, geo, landers, usLanders, offers, thanks } };
}

/** root -> middleware (vip: the offers, default: the landers). */
function middlewareFunnel(a: Assets, idMiddlewareConfig: string) {
  const root = node('root', {}, 'Entrance');
  const mw = node('middleware', { nodeMiddlewareRefParams: { idMiddlewareConfig } }, 'Scoring');
  const landers = node('landerGroup', { nodePageGroupParams: { idPageGroup: a.landers.idPageGroup } }, 'Quiz landers');
  const offers = node('offerGroup', { nodePageGroupParams: { idPageGroup: a.offers.idPageGroup } }, 'Sweeps offers');
  const thanks = node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks' } }, 'Thanks');
  const funnel = {
    idFunnel: newId(),
    idFunnelGroup: a.group.idFunnelGroup,
    funnelName: 'Scored sale',
    nodes: [root, mw, landers, offers, thanks],
    connections: [
      link(root, mw, weight()),
      link(mw, offers, { connectionMiddlewareParams: { onRouteId: 'vip' } }),
      link(mw, landers, { connectionMiddlewareParams: { onRouteId: 'default' } }),
      link(landers, offers, action(1)),
      link(offers, thanks, action(1, true)),
    ],
  };
  return { funnel, nodes: { root, mw, landers, offers } };
}

const middlewareConfig = (path = '/score') => ({
  idMiddlewareConfig: newId(),
  middlewareConfigName: 'Scoring server',
  routes: [{ idRoute: 'vip', priority: 1 }],
  destination: {
    url: `http://127.0.0.1:${middlewarePort}${path}`,
    timeoutMs: 2000,
    basicAuth: { username: 'mw', password: 'mw-password' },
    hmacSecret: HMAC_SECRET,
  },
});

describeInBothModes(
  '/v1/funnel/simulate/',
  (d) => {
    let me: Account;
    let other: Account;
    let a: Assets;
    const call = (method: string, path: string, options: { body?: unknown; key?: string } = {}) => d().api.call(method, path, { key: me.apiKey, ...options });
    const simulate = (body: Body, key?: string) => call('POST', '/funnel/simulate/', { body, ...(key ? { key } : {}) });
    const saveFunnel = async (funnel: Body) => {
      ok(await call('POST', '/funnel/save/', { body: funnel }), 'POST /funnel/save/');
      return funnel;
    };

    beforeAll(async () => {
      [me, other] = await Promise.all([d().newAccount(`sim-${newId()}@example.com`), d().newAccount(`sim-other-${newId()}@example.com`)]);
      a = await storeAssets(call);
    });

    it('walks a stored funnel from its entrance to a lander, then by action 1 to the offer, and on to a conversion, naming every asset', async () => {
      const { funnel, nodes } = geoFunnel(a);
      await saveFunnel(funnel);
      const res = ok(
        await simulate({
          idFunnel: funnel.idFunnel,
          visitor: german,
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }, { action: 1 }, { action: 1 }],
          seed: 'replay-1',
        }),
      );
      expect(res.body).toMatchObject({ seed: 'replay-1', idFunnel: funnel.idFunnel, funnelName: 'Spring sale' });
      const [entrance, toOffer, converted] = res.body.steps;

      expect(entrance.step).toEqual({ entrance: { idTrafficSource: a.source.idTrafficSource } });
      expect(entrance.steps.map((s: Body) => [s.nodeName, s.decision.kind])).toEqual([
        ['Entrance', 'entrance'],
        ['Entrance', 'weight'],
        ['Geo split', 'condition'],
        ['Quiz landers', 'page'],
      ]);
      expect(decisionAt(entrance, nodes.geo)).toMatchObject({ idCondition: a.geo.idCondition, conditionName: 'Geo', routeKey: 'default', matchedRoute: null });
      expect(entrance.destination).toMatchObject({
        type: 'page',
        idNode: nodes.landers.idNode,
        nodeName: 'Quiz landers',
        idPage: a.landerPage.idPage,
        pageName: 'Quiz A',
        pageType: 'lander',
      });
      expect(entrance.url).toMatch(/^https:\/\/lp\.example\.com\/quiz.*vid=/);
      expect(entrance.hits[0]).toMatchObject({
        isEntrance: true,
        idTrafficSource: a.source.idTrafficSource,
        trafficSourceName: 'Push network',
        idFunnelGroup: a.group.idFunnelGroup,
        funnelGroupName: a.group.funnelGroupName,
        cost: '0.02',
      });
      expect(entrance.hits).toHaveLength(3);
      expect(entrance.session).toMatchObject({ idFunnel: funnel.idFunnel, currentNode: nodes.landers.idNode, currentPage: a.landerPage.idPage });

      expect(toOffer.step).toEqual({ action: 1 });
      expect(toOffer.destination).toMatchObject({
        type: 'page',
        idNode: nodes.offers.idNode,
        idPage: a.offerPage.idPage,
        pageName: 'Sweeps DE',
        pageType: 'offer',
      });
      expect(toOffer.hits.at(-1)).toMatchObject({ idOfferSource: a.network.idOfferSource, offerSourceName: 'Network', isEntrance: false, action: 1 });
      expect(toOffer.session.visitorId).toBe(entrance.session.visitorId);

      expect(converted.effects).toContainEqual(
        expect.objectContaining({ type: 'conversion', idNode: nodes.offers.idNode, idPage: a.offerPage.idPage, pageName: 'Sweeps DE', action: 1 }),
      );
      expect(converted.destination).toMatchObject({ type: 'url', idNode: nodes.thanks.idNode });

      // The same seed gives the same walk; nothing was recorded.
      const again = ok(
        await simulate({
          idFunnel: funnel.idFunnel,
          visitor: german,
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }, { action: 1 }, { action: 1 }],
          seed: 'replay-1',
        }),
      );
      expect(again.body).toEqual(res.body);
    });

    it('answers a new seed when none is given, with which the walk replays', async () => {
      const { funnel } = geoFunnel(a);
      await saveFunnel(funnel);
      const body = { idFunnel: funnel.idFunnel, visitor: german, steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }] };
      const first = ok(await simulate(body)).body;
      expect(first.seed).toEqual(expect.any(String));
      expect(ok(await simulate({ ...body, seed: first.seed })).body).toEqual(first);
    });

    it('routes by country through the condition: a US visitor reaches the US landers by the us route', async () => {
      const { funnel, nodes } = geoFunnel(a);
      await saveFunnel(funnel);
      const res = ok(
        await simulate({
          idFunnel: funnel.idFunnel,
          visitor: { visitor: { country: 'US' }, time: TIME },
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }],
          seed: 7,
        }),
      );
      const [walked] = res.body.steps;
      expect(decisionAt(walked, nodes.geo)).toMatchObject({ kind: 'condition', routeKey: 'us', matchedRoute: { idRoute: 'us', routeName: 'US' } });
      expect(walked.destination).toMatchObject({ idNode: nodes.usLanders.idNode, nodeName: 'US landers', pageName: 'US quiz' });
    });

    it('walks an unsaved funnel, storing nothing', async () => {
      const { funnel, nodes } = geoFunnel(a);
      const res = ok(await simulate({ funnel, visitor: german, steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }], seed: 'draft' }));
      expect(res.body).toMatchObject({ idFunnel: funnel.idFunnel, funnelName: 'Spring sale' });
      expect(res.body.steps[0].destination).toMatchObject({ idNode: nodes.landers.idNode });
      expect((await call('GET', `/funnel/find/byId/?idFunnel=${funnel.idFunnel}`)).status).toBe(404);
    });

    it('refuses an unsaved funnel that validate refuses, with its problems under funnel.', async () => {
      const { funnel } = geoFunnel(a);
      const broken = { ...funnel, connections: [...funnel.connections, link(funnel.nodes[1], { idNode: newId() }, keys('other'))] };
      const res = await simulate({ funnel: broken, visitor: german, steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }] });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('FUNNEL.INVALID');
      expect(res.body.details.length).toBeGreaterThan(0);
      expect(res.body.details.every((detail: Body) => detail.field.startsWith('funnel.'))).toBe(true);
      const validated = ok(await call('POST', '/funnel/validate/', { body: broken })).body;
      expect(res.body.details.map((detail: Body) => detail.code)).toEqual(validated.errors.map((error: Body) => error.code));
    });

    it('takes a middleware route from the request; with none, the default route and the warning middlewareNotAnswered', async () => {
      const config = middlewareConfig();
      ok(await call('POST', '/middlewareconfig/save/', { body: config }));
      const { funnel, nodes } = middlewareFunnel(a, config.idMiddlewareConfig);
      await saveFunnel(funnel);
      const steps = [{ entrance: { idTrafficSource: a.source.idTrafficSource } }];
      received.length = 0;
      const answered = ok(await simulate({ idFunnel: funnel.idFunnel, visitor: german, steps, middleware: { [nodes.mw.idNode]: { routeId: 'vip' } } })).body;
      expect(decisionAt(answered.steps[0], nodes.mw)).toMatchObject({
        kind: 'middleware',
        idMiddlewareConfig: config.idMiddlewareConfig,
        middlewareConfigName: 'Scoring server',
        routeId: 'vip',
        from: 'answer',
      });
      expect(answered.steps[0].destination).toMatchObject({ idNode: nodes.offers.idNode });

      const unanswered = ok(await simulate({ idFunnel: funnel.idFunnel, visitor: german, steps })).body;
      expect(decisionAt(unanswered.steps[0], nodes.mw)).toMatchObject({ routeId: 'default', from: 'default' });
      expect(unanswered.steps[0].destination).toMatchObject({ idNode: nodes.landers.idNode });
      expect(unanswered.steps[0].warnings).toContainEqual(
        expect.objectContaining({ code: 'middlewareNotAnswered', idNode: nodes.mw.idNode, nodeName: 'Scoring' }),
      );
      expect(received).toEqual([]);
    });

    it('calls the middleware destination when asked ("call"): signed, with basic auth and the reference payload; a failed call takes the default', async () => {
      const config = middlewareConfig();
      ok(await call('POST', '/middlewareconfig/save/', { body: config }));
      const { funnel, nodes } = middlewareFunnel(a, config.idMiddlewareConfig);
      await saveFunnel(funnel);
      received.length = 0;
      const res = ok(
        await simulate({
          idFunnel: funnel.idFunnel,
          visitor: german,
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }],
          middleware: { [nodes.mw.idNode]: 'call' },
        }),
      ).body;
      expect(received).toHaveLength(1);
      expect(JSON.parse(received[0].body)).toMatchObject({ event_type: 'middleware_request' });
      expect(decisionAt(res.steps[0], nodes.mw)).toMatchObject({ routeId: 'vip', from: 'answer' });
      expect(res.steps[0].destination).toMatchObject({ idNode: nodes.offers.idNode });
      // The answer holds no secret.
      expect(JSON.stringify(res)).not.toContain(HMAC_SECRET);
      expect(JSON.stringify(res)).not.toContain('mw-password');

      const failing = middlewareConfig('/fail');
      ok(await call('POST', '/middlewareconfig/save/', { body: failing }));
      const second = middlewareFunnel(a, failing.idMiddlewareConfig);
      await saveFunnel(second.funnel);
      const failed = ok(
        await simulate({
          idFunnel: second.funnel.idFunnel,
          visitor: german,
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }],
          middleware: { [second.nodes.mw.idNode]: 'call' },
        }),
      ).body;
      expect(decisionAt(failed.steps[0], second.nodes.mw)).toMatchObject({ routeId: 'default', from: 'default' });
      expect(failed.steps[0].warnings).toContainEqual(expect.objectContaining({ code: 'middlewareCallFailed', idNode: second.nodes.mw.idNode }));
    });

    it.each([
      ['no steps', { steps: [] }, 'steps'],
      ['action 65', { steps: [{ action: 65 }] }, 'steps.0.action'],
      ['a step with both entrance and action', { steps: [{ entrance: { idTrafficSource: newId() }, action: 1 }] }, 'steps'],
      ['a visitor attribute of the wrong type', { visitor: { visitor: { country: 1 } } }, 'visitor.visitor.country'],
      ['a bad visitor ip', { visitor: { visitor: {}, ip: 'nope' } }, 'visitor.ip'],
      ['a seed that is an object', { seed: {} }, 'seed'],
      ['a bad middleware answer', { middleware: { [newId()]: 'maybe' } }, 'middleware'],
    ])('refuses %s with a 400 naming the field', async (_what, over, field) => {
      const res = await simulate({ idFunnel: newId(), visitor: german, steps: [{ entrance: { idTrafficSource: newId() } }], ...over });
      expect(res.status).toBe(400);
      expect(res.body.details.map((detail: Body) => detail.field)).toContain(field);
    });

    it("answers 404 for another account's funnel and for an unknown one", async () => {
      const { funnel } = geoFunnel(a);
      await saveFunnel(funnel);
      const body = { idFunnel: funnel.idFunnel, visitor: german, steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }] };
      expect((await simulate(body, other.apiKey)).status).toBe(404);
      expect((await simulate({ ...body, idFunnel: newId() })).status).toBe(404);
    });

    it('needs a credential (401) and assets:read: a reader may simulate, a key without it may not (403)', async () => {
      const { funnel } = geoFunnel(a);
      await saveFunnel(funnel);
      const body = { idFunnel: funnel.idFunnel, visitor: german, steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }] };
      expect((await call('POST', '/funnel/simulate/', { body, key: '' })).status).toBe(401);
      const reader = ok(await call('POST', '/apikeys/generate/', { body: { name: 'reader', permissions: ['assets:read'] } })).body.key as string;
      expect((await simulate(body, reader)).status).toBe(200);
      const reporter = ok(await call('POST', '/apikeys/generate/', { body: { name: 'reporter', permissions: ['reporting:read'] } })).body.key as string;
      expect((await simulate(body, reporter)).status).toBe(403);
    });
  },
  { OUTBOUND_ALLOW_PRIVATE: 'true' },
);

describeInBothModes('/v1/funnel/simulate/ with OUTBOUND_ALLOW_PRIVATE off', (d) => {
  it('refuses to call a middleware destination on a loopback address: nothing is sent, the default route is taken and the refusal warned', async () => {
    const me = await d().newAccount(`sim-guard-${newId()}@example.com`);
    const call = (method: string, path: string, options: { body?: unknown } = {}) => d().api.call(method, path, { key: me.apiKey, ...options });
    const a = await storeAssets(call);
    const config = middlewareConfig();
    ok(await call('POST', '/middlewareconfig/save/', { body: config }));
    const { funnel, nodes } = middlewareFunnel(a, config.idMiddlewareConfig);
    ok(await call('POST', '/funnel/save/', { body: funnel }));
    received.length = 0;
    const res = ok(
      await call('POST', '/funnel/simulate/', {
        body: {
          idFunnel: funnel.idFunnel,
          visitor: german,
          steps: [{ entrance: { idTrafficSource: a.source.idTrafficSource } }],
          middleware: { [nodes.mw.idNode]: 'call' },
        },
      }),
    ).body;
    expect(received).toEqual([]);
    expect(decisionAt(res.steps[0], nodes.mw)).toMatchObject({ routeId: 'default', from: 'default' });
    expect(res.steps[0].warnings).toContainEqual(
      expect.objectContaining({ code: 'middlewareCallFailed', idNode: nodes.mw.idNode, message: expect.stringContaining('not a public address') }),
    );
  });
});
