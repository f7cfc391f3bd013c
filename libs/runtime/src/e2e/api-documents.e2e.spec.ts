import SwaggerParser from '@apidevtools/swagger-parser';
import { ASSET_KINDS, AssetKindDescriptor, QueryFilter, generateAssetId } from '@funnel/contracts';
import { OpenApiDocument, buildOpenApiDocument, gatewayOwnRoutes, gatewayRoutes } from '@funnel/gateway';
import { describeInBothModes } from './harness';
import { ResponseContract } from './response-contract';

describeInBothModes('the API documents', (d) => {
  it('GET /v1/openapi.json: the valid generated document, without a credential', async () => {
    const answer = await d().api.call('GET', '/openapi.json', { key: '' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.body).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument(gatewayRoutes(), gatewayOwnRoutes()))));
    await expect(SwaggerParser.validate(answer.body)).resolves.toBeTruthy();
  });

  it('GET /v1/docs: the Swagger UI page and its files, without a credential', async () => {
    const page = await d().api.call('GET', '/docs/', { key: '' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('<div id="swagger-ui"></div>');
    const bundle = await d().api.call('GET', '/docs/swagger-ui-bundle.js', { key: '', contract: false });
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(bundle.text).toContain('SwaggerUIBundle');
  });
});

type Body = Record<string, any>;
const newId = () => generateAssetId();
const node = (nodeType: string, params: Body = {}) => ({ idNode: newId(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
const link = (from: Body, to: Body, params: Body = {}) => ({ idConnection: newId(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });

/**
 * One valid record of each asset kind, made in an order that lets each name the ones before it.
 * Keyed by kind: the test walks the kind registry and fails for a kind without one here.
 */
function samples(): { kind: string; make(made: Record<string, Body>): Body }[] {
  return [
    { kind: 'category', make: () => ({ idCategory: newId(), categoryName: 'Push', categoryType: 'trafficsources' }) },
    { kind: 'visitortag', make: () => ({ idTag: newId(), tagName: 'Buyers', color: 'teal' }) },
    { kind: 'trafficsource', make: (m) => ({ idTrafficSource: newId(), trafficSourceName: 'Push', idCategory: m.category.idCategory }) },
    { kind: 'offersource', make: () => ({ idOfferSource: newId(), offerSourceName: 'Network' }) },
    {
      kind: 'page',
      make: (m) => ({
        idPage: newId(),
        pageType: 'offer',
        pageName: 'Sweeps',
        baseURL: 'https://o.example.com/g',
        offerParams: { idOfferSource: m.offersource.idOfferSource, payout: 1 },
      }),
    },
    { kind: 'pagegroup', make: (m) => ({ idPageGroup: newId(), pageGroupName: 'Offers', pageType: 'offer', pages: [{ idPage: m.page.idPage }] }) },
    {
      kind: 'condition',
      make: (m) => ({
        idCondition: newId(),
        conditionName: 'Geo',
        routes: [
          { idRoute: 'us_mobile', routeName: 'US mobile', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US', 'CA'] }] }] },
          {
            idRoute: 'tagged',
            routeName: 'Tagged at night',
            ruleGroups: [
              { rules: [{ attribute: 'visitorTag', operator: 'has', values: [m.visitortag.idTag] }] },
              {
                rules: [
                  { attribute: 'hour', operator: 'gte', values: ['22'] },
                  { attribute: 'trackingField', name: 'zone', operator: 'startsWith', values: ['12'] },
                ],
              },
            ],
          },
        ],
      }),
    },
    { kind: 'logicscript', make: () => ({ idLogicScript: newId(), logicScriptName: 'Split', code: 'if country == "US" {\n\treturn "us"\n}\nreturn "other"' }) },
    {
      kind: 'webhookconfig',
      make: () => ({
        idWebhookConfig: newId(),
        webhookConfigName: 'Notify',
        url: 'https://hooks.example.com/in',
        triggers: ['node_execution', 'conversion_triggered', 'custom_event_triggered'],
        allFunnels: true,
      }),
    },
    {
      kind: 'middlewareconfig',
      make: () => ({
        idMiddlewareConfig: newId(),
        middlewareConfigName: 'Score',
        destination: { url: 'https://mw.example.com/score', hmacSecret: 'h'.repeat(32) },
      }),
    },
    { kind: 'funnelgroup', make: () => ({ idFunnelGroup: newId(), funnelGroupName: `Spring ${newId()}` }) },
    {
      kind: 'ainodesetting',
      make: () => ({
        idAINodeSetting: newId(),
        funnelId: newId(),
        segmentBy: 'trafficSource',
        routingGoal: 'bestNextPage',
        lookbackWindow: 168,
        updateFrequency: 24,
      }),
    },
    { kind: 'funnel', make: (m) => funnelWithEveryNodeType(m) },
    {
      kind: 'shortlink',
      make: () => ({ idShortLink: newId(), shortLinkName: 'Sale', slug: `sale-${newId()}`, destinationUrl: 'https://shop.example.com/sale' }),
    },
  ];
}

/** A funnel with a node of every type, the params of each, and connections of every params kind. */
function funnelWithEveryNodeType(m: Record<string, Body>): Body {
  const root = node('root');
  const rotator = node('rotator', { nodeRotatorParams: { rotatorType: 'session' } });
  const geo = node('condition', { nodeConditionParams: { idCondition: m.condition.idCondition } });
  const offers = node('offerGroup', { nodePageGroupParams: { idPageGroup: m.pagegroup.idPageGroup, additionalTokens: [{ key: 'lp', value: 'a' }] } });
  const exit = node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks?c={clickid}' } });
  const script = node('logic', { nodeLogicParams: { idLogicScript: m.logicscript.idLogicScript } });
  const tag = node('visitorTag', { nodeVisitorTagParams: { idTags: [m.visitortag.idTag] } });
  const enrich = node('middleware', {
    nodeMiddlewareRefParams: {
      idMiddlewareConfig: m.middlewareconfig.idMiddlewareConfig,
      destinationOverrides: { headers: { 'X-Funnel': 'spring' }, basicAuth: { username: 'bob', password: 'secret-pw' }, hmacSecret: 'o'.repeat(20) },
    },
  });
  const notify = node('webhook', { nodeWebhookParams: { idWebhookConfig: m.webhookconfig.idWebhookConfig } });
  const ai = node('ai', { nodeAiParams: { idAINodeSetting: m.ainodesetting.idAINodeSetting } });
  return {
    idFunnel: newId(),
    idFunnelGroup: m.funnelgroup.idFunnelGroup,
    funnelName: 'Every node',
    incomingTrafficCostOverrides: { [m.trafficsource.idTrafficSource]: '0.25' },
    nodes: [root, rotator, geo, offers, exit, script, tag, enrich, notify, ai],
    connections: [
      link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
      link(rotator, geo, { connectionRotatorParams: { weight: 1 } }),
      link(geo, script, { connectionLogicParams: { onRouteKeys: ['us_mobile', 'default'] } }),
      link(geo, offers, { connectionLogicParams: { onRouteKeys: ['tagged'] } }),
      link(script, tag, { connectionLogicParams: { onRouteKeys: ['us', 'other', 'default'] } }),
      link(tag, enrich),
      link(enrich, notify, { connectionMiddlewareParams: { onRouteId: 'default' } }),
      link(notify, ai),
      link(ai, offers, { connectionLogicParams: { onRouteKeys: ['default'] } }),
      link(offers, exit, { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
    ],
  };
}

/** The value a required list filter takes to find `record` (its field, or the parameter value that stands for it). */
function filterValue(filter: QueryFilter, record: Body): string {
  const value = String(record[filter.field]);
  const param = Object.entries(filter.values ?? {}).find(([, field]) => field === value)?.[0];
  return encodeURIComponent(param ?? value);
}

describeInBothModes('the API document describes real answers', (d) => {
  let served: OpenApiDocument;
  let contract: ResponseContract;
  /** Per family (the path's first segment), the answers checked against the served document. */
  const checked = new Map<string, number>();
  const made: Record<string, Body> = {};
  const answers: Record<string, Body> = {};

  /** Calls the service and checks the answer against the served document (not the harness's own copy). */
  async function call(method: string, path: string, body?: unknown, expected = 200) {
    const res = await d().api.call(method, path, { body, contract: false });
    expect([method, path, res.status, res.status === expected ? '' : res.text]).toEqual([method, path, expected, '']);
    expect(contract.problem(method, path, res.status, res.text, res.body)).toBeUndefined();
    const family = path.split('/')[1];
    checked.set(family, (checked.get(family) ?? 0) + 1);
    return res;
  }

  beforeAll(async () => {
    served = (await d().api.call('GET', '/openapi.json', { key: '', contract: false })).body;
    contract = new ResponseContract(served);
  });

  it('every asset family: the bodies it takes and the records, lists and ids it answers', async () => {
    const byKind = new Map(samples().map((s) => [s.kind, s]));
    expect(ASSET_KINDS.map((k) => k.kind).filter((k) => !byKind.has(k))).toEqual([]);
    for (const sample of samples()) {
      const kind = ASSET_KINDS.find((k) => k.kind === sample.kind) as AssetKindDescriptor;
      const body = sample.make(made);
      const prefix = kind.paths[0];
      expect(contract.requestProblem('POST', `${prefix}/save/`, body)).toBeUndefined();
      await call('POST', `${prefix}/save/`, body);
      made[kind.kind] = body;
      const id = encodeURIComponent(body[kind.idField]);
      answers[kind.kind] = (await call('GET', `${prefix}/find/byId/?${kind.idField}=${id}`)).body;
      await call('GET', `${prefix}/find/byIds/?${kind.idsParam}=${id}`);
      const filters = (kind.list.filters ?? []).filter((f) => f.required).map((f) => `&${f.param}=${filterValue(f, body)}`);
      if (kind.operations.includes('list')) expect((await call('GET', `${prefix}/list/?status=all${filters.join('')}`)).body.length).toBeGreaterThan(0);
      if (kind.operations.includes('findByStatus')) await call('GET', `${prefix}/find/byStatus/?status=active`);
      if (kind.operations.includes('history')) await call('GET', `${prefix}/history/?${kind.idField}=${id}`);
      for (const [operation, lookup] of Object.entries(kind.lookups ?? {}))
        await call('GET', `${prefix}/find/${operation === 'findBySlug' ? 'bySlug' : 'byName'}/?${lookup.param}=${encodeURIComponent(body[lookup.field])}`);
    }
    // Both kinds of record with the complex fields, as saved: every node type, its params, the routes.
    expect(answers.funnel.nodes.map((n: Body) => n.nodeType).sort()).toEqual(made.funnel.nodes.map((n: Body) => n.nodeType).sort());
    expect(answers.condition.routes).toEqual(made.condition.routes);
    // The webhook config's triggers and allFunnels, as saved and as the document shows them (a wrong one refused by both).
    expect(answers.webhookconfig).toMatchObject({ triggers: made.webhookconfig.triggers, allFunnels: true });
    for (const bad of [{ triggers: ['visit'] }, { allFunnels: 'yes' }]) {
      const body = { ...made.webhookconfig, ...bad };
      expect(contract.requestProblem('POST', '/webhookconfig/save/', body)).toBeDefined();
      expect((await d().api.call('POST', '/webhookconfig/save/', { body })).status).toBe(400);
    }
    await call('POST', '/funnel/validate/', made.funnel);
    await call('POST', '/condition/evaluate/', { idCondition: made.condition.idCondition, visitor: { country: 'US' } });
    const draft = { condition: { routes: made.condition.routes }, visitor: { country: 'CA' } };
    expect(contract.requestProblem('POST', '/condition/evaluate/', draft)).toBeUndefined();
    expect((await call('POST', '/condition/evaluate/', draft)).body.routeKey).toBe('us_mobile');
  });

  it('a wrong schema in the document fails the check: a funnel node or a condition rule typed otherwise', () => {
    const broken = structuredClone(served) as Body;
    broken.components.schemas.FunnelNodeRoot.properties.posX = { type: 'string' };
    broken.components.schemas.ConditionRule.properties.values.items = { type: 'integer' };
    const strict = new ResponseContract(broken as OpenApiDocument);
    const findById = (kind: string, id: string) => `/${kind}/find/byId/?id${kind === 'funnel' ? 'Funnel' : 'Condition'}=${id}`;
    expect(strict.problem('GET', findById('funnel', made.funnel.idFunnel), 200, JSON.stringify(answers.funnel), answers.funnel)).toMatch(
      /\/nodes\/0\/posX must be string/,
    );
    expect(strict.problem('GET', findById('condition', made.condition.idCondition), 200, JSON.stringify(answers.condition), answers.condition)).toMatch(
      /\/routes\/0\/ruleGroups\/0\/rules\/0\/values\/0 must be integer/,
    );
    expect(strict.requestProblem('POST', '/funnel/save/', made.funnel)).toMatch(/posX must be string/);
    // And the served document refuses what the server refuses: a node of no type, a rule with a name on a variable.
    const badNode = { ...made.funnel, nodes: [...made.funnel.nodes, node('splitter')] };
    expect(contract.requestProblem('POST', '/funnel/save/', badNode)).toMatch(/nodes\/10/);
    const badRoute = structuredClone(made.condition);
    badRoute.routes[0].ruleGroups[0].rules[0].name = 'x';
    expect(contract.requestProblem('POST', '/condition/save/', badRoute)).toMatch(/name/);
  });

  it('reporting, billing, identity and script answers', async () => {
    const hitId = newId();
    const accepted = await call('PUT', '/reporting/update/conversions/', {
      hits: [
        { hitId, payout: 1.5, time: '2026-01-10T12:00:00Z' },
        { hitId, payout: '-1' },
      ],
    });
    await call('GET', `/reporting/jobs/?jobId=${accepted.body.jobIds[0]}`);
    await call('GET', `/reporting/postbacks/?jobId=${accepted.body.jobIds[0]}`);
    await call('PUT', '/reporting/update/customevents/', { hits: [{ hitId, eventNumber: 2, time: '2026-01-10T12:00:00Z' }] });
    const window = { timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00+01:00' };
    const cost = {
      funnelIDs: [newId()],
      trafficSourceIDs: [newId()],
      ...window,
      segments: [{ cost: 0.5, costType: 'costPerEntrance', restrictToCountryCode: 'US', restrictToTrackingFields: [{ key: 'c1', value: 'a' }] }],
    };
    expect(contract.requestProblem('PUT', '/reporting/update/cost/', cost)).toBeUndefined();
    await call('PUT', '/reporting/update/cost/', cost);
    const reset = { ...window, restrictToIPs: ['203.0.113.7', '2001:db8::1'], restrictToTrackingFields: { c1: ['a'] } };
    expect(contract.requestProblem('POST', '/reporting/update/reset/', reset)).toBeUndefined();
    await call('POST', '/reporting/update/reset/', reset);
    // The document refuses what the server refuses: a plain date, an IP that is none.
    for (const bad of [
      { ...reset, timeStart: '2026-01-10' },
      { ...reset, restrictToIPs: ['1.2.3'] },
    ]) {
      expect(contract.requestProblem('POST', '/reporting/update/reset/', bad)).toBeDefined();
      expect((await d().api.call('POST', '/reporting/update/reset/', { body: bad })).status).toBe(400);
    }

    // The webhook delivery log: its request and answer in the document.
    const webhookLog = { ...window, triggers: ['conversion_triggered'], outcomes: ['failed'], paging: { start: 0, length: 10 } };
    expect(contract.requestProblem('POST', '/reporting/logs/webhooks', webhookLog)).toBeUndefined();
    expect((await call('POST', '/reporting/logs/webhooks', webhookLog)).body).toEqual({ summary: [], rows: [], rowsReturned: 0, rowsTotal: 0 });
    const badLog = { ...webhookLog, outcomes: ['lost'] };
    expect(contract.requestProblem('POST', '/reporting/logs/webhooks', badLog)).toBeDefined();
    expect((await d().api.call('POST', '/reporting/logs/webhooks', { body: badLog })).status).toBe(400);

    // The integration deliveries log: its request and answer in the document.
    const deliveries = { ...window, kinds: ['conversions'], statuses: ['rejected'], jobIds: [newId()], paging: { start: 0, length: 10 } };
    expect(contract.requestProblem('POST', '/reporting/logs/integrationdeliveries', deliveries)).toBeUndefined();
    expect((await call('POST', '/reporting/logs/integrationdeliveries', deliveries)).body).toEqual({ rows: [], rowsReturned: 0, rowsTotal: 0 });
    const badDeliveries = { ...deliveries, statuses: ['lost'] };
    expect(contract.requestProblem('POST', '/reporting/logs/integrationdeliveries', badDeliveries)).toBeDefined();
    expect((await d().api.call('POST', '/reporting/logs/integrationdeliveries', { body: badDeliveries })).status).toBe(400);

    await call('GET', '/billing/subscription');
    await call('GET', '/billing/invoices');
    await call('GET', '/billing/domains');
    await call('GET', '/auth/jwks');
    await call('GET', '/apikeys/list');
    await call('GET', '/usersettings');
    await call('GET', '/logicscripts/language');
    await call('POST', '/logicscripts/validate', { code: 'return "a"' });
    const login = await d().api.call('POST', '/auth/login', {
      body: { username: 'admin@example.com', password: 'correct horse battery' },
      contract: false,
    });
    expect(contract.problem('POST', '/auth/login', login.status, login.text, login.body)).toBeUndefined();
    expect(login.status).toBe(200);
  });

  it('checked answers of every asset family (the kind registry) and of reporting, billing, identity, keys, settings and scripts', () => {
    const families = new Set(ASSET_KINDS.map((k) => k.paths[0].split('/')[1]));
    for (const family of ['reporting', 'billing', 'auth', 'apikeys', 'usersettings', 'logicscripts']) families.add(family);
    expect([...families].filter((family) => !checked.has(family))).toEqual([]);
  });
});
