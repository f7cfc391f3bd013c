import { compileFunnel } from '../engine';
import { MAX_SERVER_STEPS } from '../model';
import { cid, landerGroup, nid, realisticVisitor, rid, tinyFunnel, walkStep } from '../testing';

const source = rid('source');
const visitor = realisticVisitor({ params: {} });
const enter = { entrance: { idTrafficSource: source } };
const rotatorTo = (weights: number[]) => weights.map((weight, i) => ({ from: 'Root', to: `L${i}`, params: { connectionRotatorParams: { weight } } }));
const landers = (count: number) => {
  const groups = Array.from({ length: count }, (_, i) => landerGroup(`L${i}`));
  return {
    nodes: groups.map((_, i) => ({ name: `L${i}`, type: 'landerGroup', params: { nodePageGroupParams: { idPageGroup: rid(`pgL${i}`) } } })),
    assets: { pageGroups: groups.flatMap((g) => g.pageGroups), pages: groups.flatMap((g) => g.pages) },
  };
};
const keyed = (from: string, to: string, keys: string[]) => ({ from, to, params: { connectionLogicParams: { onRouteKeys: keys } } });
const codes = (result: { warnings: { code: string }[] }) => result.warnings.map((w) => w.code);

describe('root and rotator nodes', () => {
  it('draw a connection by its normalised weight and say so', () => {
    const { nodes, assets } = landers(2);
    const funnel = compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, ...nodes], rotatorTo([1, 3]), assets));
    const result = walkStep(funnel, visitor, enter);
    const decision = result.steps[1].decision;
    expect(decision).toMatchObject({ kind: 'weight', sticky: false });
    if (decision.kind !== 'weight') throw new Error('weight expected');
    expect(decision.share).toBe(decision.idConnection === cid(0) ? 0.25 : 0.75);
    expect(decision.drawn < 0.25).toBe(decision.idConnection === cid(0));
    expect(codes(result)).toContain('weightsSum');
  });

  it('give equal shares when every weight is zero', () => {
    const { nodes, assets } = landers(2);
    const funnel = compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, ...nodes], rotatorTo([0, 0]), assets));
    expect(walkStep(funnel, visitor, enter).steps[1].decision).toMatchObject({ share: 0.5 });
  });

  it('send a returning visitor down the same connection of a session rotator, while it exists', () => {
    const { nodes, assets } = landers(2);
    const root = { name: 'Root', type: 'root', params: { nodeRotatorParams: { rotatorType: 'session' } } };
    const funnel = compileFunnel(tinyFunnel([root, ...nodes], rotatorTo([0.5, 0.5]), assets));
    const first = walkStep(funnel, visitor, enter, { seed: 1 });
    const chosen = first.session.sticky[nid('Root')];
    expect([cid(0), cid(1)]).toContain(chosen);
    for (const seed of [2, 3, 4, 5, 6]) {
      const again = walkStep(funnel, visitor, enter, { seed, session: first.session });
      expect(again.steps[1].decision).toMatchObject({ idConnection: chosen, sticky: true, drawn: -1 });
    }
    const gone = { ...first.session, sticky: { [nid('Root')]: 'noSuchConn00' } };
    expect(walkStep(funnel, visitor, enter, { session: gone }).steps[1].decision).toMatchObject({ sticky: false });
  });

  it('are a dead end without a connection', () => {
    const result = walkStep(compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }], [])), visitor, enter);
    expect(result.destination).toMatchObject({ type: 'deadEnd', idNode: nid('Root') });
    expect(codes(result)).toContain('deadEnd');
  });
});

describe('lander and offer group nodes', () => {
  const twoPages = (rotation: string) => ({
    pageGroups: [
      {
        idPageGroup: rid('pgTwo'),
        pageType: 'lander',
        rotation,
        pages: [
          { idPage: rid('pOne'), weight: 1 },
          { idPage: rid('pTwo'), weight: 3 },
        ],
      },
    ],
    pages: [
      { idPage: rid('pOne'), pageType: 'lander', baseURL: 'https://one.example/?n={current-node-id}&x={extra}', redirectType: '301' },
      { idPage: rid('pTwo'), pageType: 'lander', baseURL: 'https://two.example/?h={hit}' },
    ],
  });
  const groupNode = (params: Record<string, unknown> = {}) => ({
    name: 'G',
    type: 'landerGroup',
    params: { nodePageGroupParams: { idPageGroup: rid('pgTwo'), ...params } },
  });
  const rootToG = [{ from: 'Root', to: 'G', params: { connectionRotatorParams: { weight: 1 } } }];

  it('show a page by its weight, and end the walk with its URL', () => {
    const funnel = compileFunnel(
      tinyFunnel([{ name: 'Root', type: 'root' }, groupNode({ additionalTokens: [{ key: 'extra', value: 'e 1' }] })], rootToG, twoPages('random')),
    );
    const seen = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const result = walkStep(funnel, visitor, enter, { seed });
      const page = result.destination;
      if (page.type !== 'page') throw new Error('page expected');
      seen.add(page.idPage);
      const hit = result.hits[1];
      expect(hit.idPage).toBe(page.idPage);
      expect(result.session).toMatchObject({ currentNode: nid('G'), currentPage: page.idPage });
      expect(result.url).toBe(
        page.idPage === rid('pOne')
          ? `https://one.example/?n=${nid('G')}&x=e%201&vid=${result.session.visitorId}`
          : `https://two.example/?h=${hit.hitId}&vid=${result.session.visitorId}`,
      );
      expect(page.redirectType).toBe(page.idPage === rid('pOne') ? '301' : '307');
    }
    expect(seen.size).toBe(2);
  });

  it('show a returning visitor the same page when the group rotates by session', () => {
    const funnel = compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, groupNode()], rootToG, twoPages('session')));
    const first = walkStep(funnel, visitor, enter);
    const shown = first.session.currentPage;
    for (const seed of [2, 3, 4, 5]) expect(walkStep(funnel, visitor, enter, { seed, session: first.session }).session.currentPage).toBe(shown);
  });

  it("pass the session's URL params on when the node accumulates them", () => {
    const funnel = compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, groupNode({ accumulateUrlParams: true })], rootToG, twoPages('random')));
    const result = walkStep(funnel, realisticVisitor({ params: { gclid: 'g1', h: 'not mine' } }), enter, { seed: 4 });
    expect(result.url).toContain('gclid=g1');
    expect(result.url).not.toContain('not');
  });

  it('are a dead end when the group is empty or missing', () => {
    const empty = { pageGroups: [{ idPageGroup: rid('pgTwo'), pageType: 'lander', pages: [] }] };
    const result = walkStep(compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, groupNode()], rootToG, empty)), visitor, enter);
    expect(result.destination).toMatchObject({ type: 'deadEnd', idNode: nid('G') });
    expect(codes(result)).toContain('emptyPageGroup');
    const missing = walkStep(compileFunnel(tinyFunnel([{ name: 'Root', type: 'root' }, groupNode()], rootToG)), visitor, enter);
    expect(codes(missing)).toContain('missingAsset');
    expect(missing.destination.type).toBe('deadEnd');
  });
});

describe('condition nodes', () => {
  const condition = {
    idCondition: rid('cond'),
    routes: [{ idRoute: 'de', routeName: 'Germany', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['DE'] }] }] }],
  };
  const nodes = (extra: { name: string; type: string; params?: Record<string, unknown> }[] = []) => [
    { name: 'Root', type: 'root' },
    { name: 'C', type: 'condition', params: { nodeConditionParams: { idCondition: rid('cond') } } },
    ...extra,
  ];
  const { nodes: pages, assets } = landers(2);
  const links = [{ from: 'Root', to: 'C', params: { connectionRotatorParams: { weight: 1 } } }, keyed('C', 'L0', ['de']), keyed('C', 'L1', ['default'])];

  it('follow the matching route, else default', () => {
    const funnel = compileFunnel(tinyFunnel([...nodes(), ...pages], links, { ...assets, conditions: [condition] }));
    const german = walkStep(funnel, visitor, enter);
    expect(german.steps[2].decision).toMatchObject({
      kind: 'condition',
      routeKey: 'de',
      matchedRoute: { idRoute: 'de', routeName: 'Germany' },
      idConnection: cid(1),
    });
    expect(german.destination).toMatchObject({ idNode: nid('L0') });
    const french = walkStep(funnel, realisticVisitor({ attributes: { country: 'FR' } }), enter);
    expect(french.steps[2].decision).toMatchObject({ routeKey: 'default', matchedRoute: null, idConnection: cid(2) });
  });

  it('read the session tracking fields by their parameter name', () => {
    const byCampaign = {
      idCondition: rid('cond'),
      routes: [{ idRoute: 'de', routeName: 'x', ruleGroups: [{ rules: [{ attribute: 'trackingField', name: 'cmp', operator: 'is', values: ['spring'] }] }] }],
    };
    const trafficSources = [{ idTrafficSource: source, trackingFieldSlots: { c5: { name: 'cmp', status: 'active' } } }];
    const funnel = compileFunnel(tinyFunnel([...nodes(), ...pages], links, { ...assets, conditions: [byCampaign], trafficSources }));
    expect(walkStep(funnel, realisticVisitor({ params: { cmp: 'spring' } }), enter).steps[2].decision).toMatchObject({ routeKey: 'de' });
    expect(walkStep(funnel, realisticVisitor({ params: { cmp: 'autumn' } }), enter).steps[2].decision).toMatchObject({ routeKey: 'default' });
  });

  it('are a dead end when neither the route nor default has a connection', () => {
    const funnel = compileFunnel(tinyFunnel([...nodes(), ...pages], links.slice(0, 2), { ...assets, conditions: [condition] }));
    const result = walkStep(funnel, realisticVisitor({ attributes: { country: 'FR' } }), enter);
    expect(result.destination).toMatchObject({ type: 'deadEnd', idNode: nid('C') });
    expect(codes(result)).toContain('noDefaultRoute');
  });
});

describe('logic nodes', () => {
  const { nodes: pages, assets } = landers(2);
  const funnelWith = (code: string) =>
    compileFunnel(
      tinyFunnel(
        [{ name: 'Root', type: 'root' }, { name: 'S', type: 'logic', params: { nodeLogicParams: { idLogicScript: rid('script') } } }, ...pages],
        [{ from: 'Root', to: 'S', params: { connectionRotatorParams: { weight: 1 } } }, keyed('S', 'L0', ['mobile']), keyed('S', 'L1', ['default'])],
        { ...assets, logicScripts: [{ idLogicScript: rid('script'), code }] },
      ),
    );

  it('follow the key the script returns', () => {
    const result = walkStep(funnelWith('if deviceType == "mobile" {\n\treturn "mobile"\n}\nreturn "default"\n'), visitor, enter);
    expect(result.steps[2].decision).toMatchObject({ kind: 'logic', routeKey: 'mobile', fallback: false, reasonCode: 'RETURNED', idConnection: cid(1) });
  });

  it('take default for a key no connection takes, and for an invalid script (with a warning)', () => {
    expect(walkStep(funnelWith('return "tablet"\n'), visitor, enter).steps[2].decision).toMatchObject({
      routeKey: 'default',
      fallback: true,
      reasonCode: 'UNKNOWN_ROUTE_KEY',
      idConnection: cid(2),
    });
    const invalid = walkStep(funnelWith('return 1 +\n'), visitor, enter);
    expect(invalid.steps[2].decision).toMatchObject({ routeKey: 'default', fallback: true, reasonCode: 'INVALID_SCRIPT', idConnection: cid(2) });
    expect(codes(invalid)).toContain('invalidScript');
  });
});

describe('middleware nodes', () => {
  const { nodes: pages, assets } = landers(2);
  const config = {
    idMiddlewareConfig: rid('mw'),
    routes: [
      { idRoute: 'default', priority: 0, isDefault: true },
      { idRoute: 'vip', priority: 1 },
    ],
    destination: { url: 'https://mw.example/', timeoutMs: 800 },
  };
  const funnel = compileFunnel(
    tinyFunnel(
      [{ name: 'Root', type: 'root' }, { name: 'M', type: 'middleware', params: { nodeMiddlewareRefParams: { idMiddlewareConfig: rid('mw') } } }, ...pages],
      [
        { from: 'Root', to: 'M', params: { connectionRotatorParams: { weight: 1 } } },
        { from: 'M', to: 'L0', params: { connectionMiddlewareParams: { onRouteId: 'vip' } } },
        { from: 'M', to: 'L1', params: { connectionMiddlewareParams: { onRouteId: 'default' } } },
      ],
      { ...assets, middlewareConfigs: [config] },
    ),
  );

  it('pause with the reference payload, and follow the route answered', async () => {
    const { startWalk, seededRandom, seededIds } = await import('../engine');
    const random = seededRandom(1);
    const outcome = startWalk(funnel, { visitor, session: null, step: enter, random, ids: seededIds(random, visitor.time) });
    if (outcome.done) throw new Error('a pause was expected');
    expect(outcome.call).toMatchObject({ idNode: nid('M'), idMiddlewareConfig: rid('mw'), timeoutMs: 800, config });
    expect(outcome.call.payload).toMatchObject({
      schema_version: 1,
      event_type: 'middleware_request',
      execute_timeout_ms: 800,
      funnel: { id: rid('funnel') },
      traffic_source: { id: source },
      url_buffer: {},
      visitor_tags: [],
      action_data: null,
    });
    const done = outcome.resume({ routeId: 'vip' });
    if (!done.done) throw new Error('the walk should end');
    expect(done.result.destination).toMatchObject({ idNode: nid('L0') });
    expect(done.result.effects).toEqual([{ type: 'middlewareCall', idNode: nid('M'), idMiddlewareConfig: rid('mw'), routeId: 'vip', from: 'answer' }]);
    expect(() => outcome.resume({ routeId: 'vip' })).toThrow(/already resumed/);
  });

  it('take the default route on a failure or a route the config does not have', () => {
    const failed = walkStep(funnel, visitor, enter, { answers: { [nid('M')]: { failure: 'timeout' } } });
    expect(failed.steps[2].decision).toMatchObject({ kind: 'middleware', routeId: 'default', from: 'default' });
    expect(failed.destination).toMatchObject({ idNode: nid('L1') });
    const unknown = walkStep(funnel, visitor, enter, { answers: { [nid('M')]: { routeId: 'gold' } } });
    expect(unknown.steps[2].decision).toMatchObject({ routeId: 'default', from: 'default' });
  });
});

describe('webhook and visitor tag nodes', () => {
  it('record a dispatch and the tags, and pass through', () => {
    const { nodes: pages, assets } = landers(1);
    const funnel = compileFunnel(
      tinyFunnel(
        [
          { name: 'Root', type: 'root' },
          { name: 'T', type: 'visitorTag', params: { nodeVisitorTagParams: { idTags: [rid('tagB'), rid('tagA')] } } },
          { name: 'W', type: 'webhook', params: { nodeWebhookParams: { idWebhookConfig: rid('hook') } } },
          ...pages,
        ],
        [
          { from: 'Root', to: 'T', params: { connectionRotatorParams: { weight: 1 } } },
          { from: 'T', to: 'W' },
          { from: 'W', to: 'L0' },
        ],
        { ...assets, webhookConfigs: [{ idWebhookConfig: rid('hook'), enabled: true }], visitorTags: [{ idTag: rid('tagA') }, { idTag: rid('tagB') }] },
      ),
    );
    const result = walkStep(funnel, visitor, enter);
    expect(result.destination).toMatchObject({ type: 'page', idNode: nid('L0') });
    expect(result.session.tags).toEqual([rid('tagA'), rid('tagB')]);
    expect(result.hits.map((hit) => hit.visitorTags.length)).toEqual([0, 2, 2, 2]);
    expect(result.effects).toEqual([
      { type: 'tagsSet', idNode: nid('T'), idTags: [rid('tagB'), rid('tagA')] },
      { type: 'webhookDispatch', idNode: nid('W'), idWebhookConfig: rid('hook'), eventType: 'node_execution', hitId: result.hits[2].hitId },
    ]);
  });
});

describe('AI nodes', () => {
  const { nodes: pages, assets } = landers(3);
  const funnelWith = (scores: Record<string, number> | undefined, minimum: number) =>
    compileFunnel(
      tinyFunnel(
        [{ name: 'Root', type: 'root' }, { name: 'A', type: 'ai', params: { nodeAiParams: { idAINodeSetting: rid('ai') } } }, ...pages],
        [
          { from: 'Root', to: 'A', params: { connectionRotatorParams: { weight: 1 } } },
          keyed('A', 'L0', ['a']),
          keyed('A', 'L1', ['b']),
          keyed('A', 'L2', ['default']),
        ],
        {
          ...assets,
          aiNodeSettings: [{ idAINodeSetting: rid('ai'), calculationParams: { minimumPercentagePerVariant: minimum } }],
          aiScores: scores && { [rid('ai')]: scores },
        },
      ),
    );

  it('share the keys by score, each at least the minimum, default left out', () => {
    const decision = walkStep(funnelWith({ a: 3, b: 1 }, 10), visitor, enter).steps[2].decision;
    if (decision.kind !== 'ai') throw new Error('ai expected');
    expect(decision.shares.a).toBeCloseTo(0.1 + 0.8 * 0.75);
    expect(decision.shares.b).toBeCloseTo(0.1 + 0.8 * 0.25);
    expect(Object.keys(decision.shares)).toEqual(['a', 'b']);
  });

  it('give equal shares without scores', () => {
    const decision = walkStep(funnelWith(undefined, 0), visitor, enter).steps[2].decision;
    expect(decision).toMatchObject({ kind: 'ai', shares: { a: 0.5, b: 0.5 } });
  });
});

describe('external URL nodes and loops', () => {
  it('end the walk at the URL with tokens and vid', () => {
    const funnel = compileFunnel(
      tinyFunnel(
        [
          { name: 'Root', type: 'root' },
          { name: 'X', type: 'externalUrl', params: { nodeExternalUrlParams: { url: 'https://x.example/?geo={country}&u={unknown}' } } },
        ],
        [{ from: 'Root', to: 'X', params: { connectionRotatorParams: { weight: 1 } } }],
      ),
    );
    const result = walkStep(funnel, visitor, enter);
    expect(result.destination).toMatchObject({ type: 'url', idNode: nid('X') });
    expect(result.url).toBe(`https://x.example/?geo=DE&u={unknown}&vid=${result.session.visitorId}`);
    expect(result.session).toMatchObject({ currentNode: nid('X'), currentPage: '' });
  });

  it(`cut a loop of server-side nodes after ${MAX_SERVER_STEPS} of them`, () => {
    const funnel = compileFunnel(
      tinyFunnel(
        [
          { name: 'Root', type: 'root' },
          { name: 'A', type: 'webhook', params: { nodeWebhookParams: { idWebhookConfig: rid('hook') } } },
          { name: 'B', type: 'visitorTag', params: { nodeVisitorTagParams: { idTags: [rid('tag')] } } },
        ],
        [
          { from: 'Root', to: 'A', params: { connectionRotatorParams: { weight: 1 } } },
          { from: 'A', to: 'B' },
          { from: 'B', to: 'A' },
        ],
      ),
    );
    const result = walkStep(funnel, visitor, enter);
    expect(result.hits).toHaveLength(MAX_SERVER_STEPS);
    expect(result.destination).toMatchObject({ type: 'deadEnd' });
    expect(codes(result)).toContain('loopCut');
  });
});
