import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ASSET_KINDS,
  AttributeCatalogue,
  DrilldownReport,
  ExplorerVisitorReport,
  FUNNEL_NODE_TYPES,
  PostbackLogReport,
  RawEventsReport,
  ReportingQuerySubjects,
  ServiceError,
} from '@funnel/contracts';
import { aHit } from '@funnel/reporting-domain';
import { ServiceClient, createMetricsRegistry } from '@funnel/platform';
import { GatewayModule, gatewayRoutes } from '../../gateway.module';
import { createGatewayApp } from '../../create-gateway-app';
import { gatewayOwnRoutes } from '../own-routes';
import { OpenApiDocument, buildOpenApiDocument } from './document';

const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
type Operation = { security?: unknown[]; 'x-permission'?: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
const operation = (doc: OpenApiDocument, method: string, path: string) => doc.paths[openApiPath(path)]?.[method.toLowerCase()] as Operation | undefined;

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument(gatewayRoutes(), gatewayOwnRoutes());

  it('is a valid OpenAPI 3.1 document', async () => {
    await expect(SwaggerParser.validate(structuredClone(document) as never)).resolves.toBeTruthy();
    expect(document.openapi).toBe('3.1.0');
  });

  it('has schemas a strict JSON Schema 2020-12 validator compiles: every component, body, answer and parameter', () => {
    const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
    addFormats(ajv);
    // The document's own keywords, and OpenAPI's discriminator (an annotation for generators).
    ajv.addVocabulary(['openapi', 'info', 'servers', 'security', 'tags', 'paths', 'components', 'discriminator']);
    ajv.addSchema(structuredClone(document), 'openapi.json');
    const pointer = (...segments: string[]) => `openapi.json#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    const locations = Object.keys(document.components.schemas).map((name) => ['components', 'schemas', name]);
    for (const [path, item] of Object.entries(document.paths))
      for (const [method, op] of Object.entries(item as Record<string, Record<string, any>>)) {
        if (op.requestBody) locations.push(['paths', path, method, 'requestBody', 'content', 'application/json', 'schema']);
        for (const [status, answer] of Object.entries(op.responses as Record<string, { content?: object }>))
          for (const type of Object.keys(answer.content ?? {})) locations.push(['paths', path, method, 'responses', status, 'content', type, 'schema']);
        ((op.parameters ?? []) as unknown[]).forEach((_p, i) => locations.push(['paths', path, method, 'parameters', String(i), 'schema']));
      }
    const problems: string[] = [];
    for (const location of locations) {
      try {
        ajv.compile({ $ref: pointer(...location) });
      } catch (error) {
        problems.push(`${location.join(' ')}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    expect(locations.length).toBeGreaterThan(500);
  });

  it('types the complex bodies: funnel nodes per nodeType, connections, condition routes, reporting rows, times, IPs', () => {
    const schemas = document.components.schemas as Record<string, any>;
    for (const record of [schemas.FunnelDto, schemas.FunnelRecord]) {
      expect(record.properties.nodes.items).toEqual({ $ref: '#/components/schemas/FunnelNode' });
      expect(record.properties.connections.items).toEqual({ $ref: '#/components/schemas/FunnelConnection' });
    }
    expect(Object.keys(schemas.FunnelNode.discriminator.mapping)).toEqual([...FUNNEL_NODE_TYPES]);
    for (const [type, ref] of Object.entries<string>(schemas.FunnelNode.discriminator.mapping)) {
      expect(schemas.FunnelNode.oneOf).toContainEqual({ $ref: ref });
      expect(schemas[ref.split('/').pop()!].properties.nodeType.enum).toContain(type);
    }
    expect(schemas.ConditionDto.properties.routes.items).toEqual({ $ref: '#/components/schemas/ConditionRoute' });
    expect(schemas.ConversionsUpdateDto.properties.hits.items).toEqual({ $ref: '#/components/schemas/ConvertedHitDto' });
    expect(schemas.CostUpdateDto.properties.segments.items).toEqual({ $ref: '#/components/schemas/CostSegmentDto' });
    expect(schemas.CostSegmentDto.properties.cost.anyOf).toContainEqual({ type: 'number', minimum: 0, exclusiveMaximum: 1e12 });
    for (const [dto, field] of [
      ['CostUpdateDto', 'timeStart'],
      ['ResetUpdateDto', 'timeEnd'],
      ['ConvertedHitDto', 'time'],
      ['CustomEventUploadHitDto', 'time'],
    ])
      expect(schemas[dto].properties[field]).toEqual({ type: 'string', format: 'date-time' });
    expect(schemas.ResetUpdateDto.properties.restrictToIPs.items).toEqual({ type: 'string', anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] });
    // No field anywhere says "one of two formats" (a validator that only annotates formats refuses every value of such a field).
    expect(JSON.stringify(document)).not.toMatch(/"oneOf":\[\{"format"/);
  });

  it('has every route of the route table and every route the gateway serves itself, with its method', () => {
    const routes = [...gatewayRoutes(), ...gatewayOwnRoutes()];
    expect(routes.length).toBeGreaterThan(200);
    const missing = routes.filter((r) => !operation(document, r.method, r.path)).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    const documented = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(documented).toBe(routes.length);
  });

  it('declares the three credentials and each route its permission; public routes need none', () => {
    expect(document.components.securitySchemes).toEqual({
      ApiKeyHeader: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
      ApiKeyQuery: expect.objectContaining({ type: 'apiKey', in: 'query', name: 'key' }),
      BearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
    });
    expect(document.security).toEqual([{ ApiKeyHeader: [] }, { ApiKeyQuery: [] }, { BearerAuth: [] }]);
    expect(operation(document, 'POST', '/auth/login')).toMatchObject({ security: [], 'x-permission': 'public' });
    // The second factor is managed from a user's session only: an API key is refused there.
    for (const [method, path] of [
      ['POST', '/auth/mfa/otp/enroll'],
      ['POST', '/auth/mfa/otp/confirm'],
      ['DELETE', '/auth/mfa/otp'],
    ] as const) {
      expect(operation(document, method, path)).toMatchObject({
        security: [{ BearerAuth: [] }],
        description: expect.stringContaining('an API key is refused'),
      });
    }
    expect(operation(document, 'GET', '/funnel/list')?.security).toBeUndefined();
    expect(operation(document, 'GET', '/funnel/list')?.['x-permission']).toBe('assets:read');
    expect(operation(document, 'POST', '/billing/domains')?.['x-permission']).toBe('billing:manage');
  });

  it('answers records per kind: full on find/byId, slim on list, renamed under the legacy campaign paths', () => {
    const schemaOf = (method: string, path: string) => operation(document, method, path)?.responses['200'].content?.['application/json'].schema;
    for (const kind of ASSET_KINDS) {
      expect(schemaOf('GET', `${kind.paths[0]}/find/byId`)).toEqual({ $ref: `#/components/schemas/${kind.eventPrefix}Record` });
      if (kind.operations.includes('list'))
        expect(schemaOf('GET', `${kind.paths[0]}/list`)).toEqual({
          type: 'array',
          items: { $ref: `#/components/schemas/${kind.eventPrefix}${kind.slimFields ? 'Slim' : 'Record'}` },
        });
    }
    const schemas = document.components.schemas as Record<string, { properties: Record<string, unknown>; required: string[] }>;
    expect(Object.keys(schemas.CampaignSlim.properties)).toEqual(['idCampaign', 'campaignName', 'status', 'funnels']);
    expect(schemas.FunnelSlim.required).toEqual(expect.arrayContaining(['idFunnel', 'funnelName', 'idFunnelGroup', 'status', 'funnelGroupName']));
    expect(schemas.PageGroupSlim.properties.pageCount).toEqual({ type: 'integer', minimum: 0 });
    expect(schemas.WebhookConfigRecord.properties.hasBasicAuthPassword).toMatchObject({ type: 'boolean' });
    expect(schemaOf('POST', '/campaign/save')).toBeUndefined();
    expect(schemaOf('POST', '/funnelgroup/save')).toEqual({ $ref: '#/components/schemas/FunnelGroupRecord' });
  });

  it('takes request bodies from the DTOs the services validate with', () => {
    const bodyOf = (method: string, path: string) =>
      (document.paths[path][method] as { requestBody?: { content: Record<string, { schema: unknown }> } }).requestBody;
    expect(bodyOf('post', '/funnel/save')?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FunnelDto' });
    expect(bodyOf('post', '/auth/login')?.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LoginDto' });
    expect(document.components.schemas.LoginDto).toMatchObject({ required: ['username', 'password'] });
    expect(document.components.schemas.DuplicateRequestDto).toMatchObject({ properties: { name: { type: 'string', minLength: 1, maxLength: 256 } } });
  });

  describe('the reporting queries', () => {
    const ajv = new Ajv2020({ strict: false, allowUnionTypes: true });
    addFormats(ajv);
    ajv.addSchema(structuredClone(document) as object, 'openapi.json');
    const pointer = (...segments: string[]) => `openapi.json#/${segments.map((s) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
    /** Problems of `value` as the answer (or the request body) of `method path`, as the document says. */
    const problemsOf = (method: string, path: string, value: unknown, part: 'answer' | 'body' = 'answer') => {
      const at =
        part === 'answer'
          ? pointer('paths', path, method, 'responses', '200', 'content', 'application/json', 'schema')
          : pointer('paths', path, method, 'requestBody', 'content', 'application/json', 'schema');
      const validate = ajv.compile({ $ref: at });
      return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
    };
    const row = (rowId: string, parentRowId: string | null, children: DrilldownReport['rows'] = []) => ({
      rowId,
      parentRowId,
      cells: [
        { formatted: 'Push network', raw: 'TSOURCE00001' },
        { formatted: 'N/A', raw: null },
        { formatted: '1,204', raw: 1204 },
      ],
      children,
    });
    const hit = aHit({
      conversions: [{ transactionId: 't', payout: '2.5', time: '2026-01-10T12:05:00.000Z' }],
      customEvents: { '3': 2 },
      visitorTags: ['TAG000000001'],
    });

    it('are served with reporting:read (which reporting:write implies), bodies from the DTOs the service validates with', () => {
      const routes: [string, string, string, string | undefined][] = [
        ['GET', '/reporting/attributes', ReportingQuerySubjects.attributes, undefined],
        ['POST', '/reporting/drilldown', ReportingQuerySubjects.drilldown, 'DrilldownRequestDto'],
        ['POST', '/reporting/rawevents', ReportingQuerySubjects.rawEvents, 'RawEventsRequestDto'],
        ['POST', '/reporting/explorer/visitor', ReportingQuerySubjects.explorerVisitor, undefined],
        ['POST', '/reporting/explorer/hit', ReportingQuerySubjects.explorerHit, 'ExplorerHitRequestDto'],
        ['POST', '/reporting/logs/postbacks', ReportingQuerySubjects.postbackLog, 'PostbackLogRequestDto'],
      ];
      for (const [method, path, subject, dto] of routes) {
        expect(gatewayRoutes().find((r) => r.method === method && r.path === path)).toMatchObject({ subject, permission: 'reporting:read' });
        const op = operation(document, method, path) as Operation & {
          description: string;
          tags: string[];
          requestBody?: { content: Record<string, { schema: unknown }> };
        };
        expect(op).toMatchObject({ 'x-permission': 'reporting:read', tags: ['reporting'] });
        expect(op.description).toContain('Needs the `reporting:read` permission (or `reporting:write`, which implies it).');
        if (dto) expect(op.requestBody?.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${dto}` });
      }
      expect(operation(document, 'POST', '/reporting/explorer/visitor')).toMatchObject({
        requestBody: {
          content: {
            'application/json': {
              schema: { oneOf: [{ $ref: '#/components/schemas/ExplorerVisitorRequestDto' }, { $ref: '#/components/schemas/ExplorerHitRequestDto' }] },
            },
          },
        },
      });
      expect(operation(document, 'GET', '/reporting/attributes')).toMatchObject({
        parameters: [expect.objectContaining({ name: 'idTrafficSource', required: false })],
      });
      // The update routes keep their own permission.
      expect(operation(document, 'PUT', '/reporting/update/conversions')?.['x-permission']).toBe('reporting:write');
    });

    it('document request bodies that take what the contract allows and refuse what the DTOs refuse', () => {
      const window = { timeStart: '2026-11-20T00:00:00-05:00', timeEnd: '2026-11-21T00:00:00-05:00' };
      const drilldown = {
        ...window,
        timeZone: 'America/New_York',
        groupings: [{ groupBy: 'trafficSource', whitelistFilters: ['TSOURCE00001'] }, { groupBy: 'Location: Country' }],
        topLevelFilters: [{ groupBy: 'trafficSource', whitelistFilters: [null] }],
        columnFilters: { filterColumns: [{ columnName: 'Revenue', filter: '> 0' }] },
        sorting: { sortingColumns: [{ columnName: 'P/L', order: 'desc' }] },
        paging: { start: 0, length: 50 },
        options: { viewType: 'tree', timeAttribution: 'entrance' },
        metrics: ['Entrances', 'Revenue'],
      };
      expect(problemsOf('post', '/reporting/drilldown', drilldown, 'body')).toEqual([]);
      expect(problemsOf('post', '/reporting/drilldown', { ...drilldown, groupings: [] }, 'body')).not.toEqual([]);
      expect(problemsOf('post', '/reporting/drilldown', { ...drilldown, options: { viewType: 'mixed' } }, 'body')).not.toEqual([]);
      expect(problemsOf('post', '/reporting/drilldown', { ...drilldown, paging: { length: 10_001 } }, 'body')).not.toEqual([]);
      expect(problemsOf('post', '/reporting/explorer/visitor', { visitorId: 'VISITOR00001', ...window }, 'body')).toEqual([]);
      expect(problemsOf('post', '/reporting/explorer/visitor', { hitId: 'HIT000000001' }, 'body')).toEqual([]);
      expect(problemsOf('post', '/reporting/explorer/visitor', { hitId: 'HIT000000001', visitorId: 'VISITOR00001', ...window }, 'body')).not.toEqual([]);
      expect(problemsOf('post', '/reporting/logs/postbacks', { ...window, statuses: ['queued'] }, 'body')).not.toEqual([]);
    });

    it('document answers in the shapes of the contract (a tree row nests its children)', () => {
      const catalogue: AttributeCatalogue = {
        attributes: [{ key: 'country', label: 'Location: Country', type: 'text', canGroupBy: true, canFilter: true }],
        metrics: [{ key: 'roi', label: 'ROI', type: 'ratio', formula: '(Revenue - Cost) / Cost' }],
      };
      expect(problemsOf('get', '/reporting/attributes', catalogue)).toEqual([]);
      expect(problemsOf('get', '/reporting/attributes', { ...catalogue, attributes: [{ ...catalogue.attributes[0], type: 'date' }] })).not.toEqual([]);
      const report: DrilldownReport = {
        columns: [
          { name: 'Third Parties: Traffic Source', key: 'trafficSource', type: 'grouping', description: 'the traffic source' },
          { name: 'Location: Country', key: 'country', type: 'grouping', description: 'the country' },
          { name: 'Entrances', key: 'entrances', type: 'metric', description: 'visits' },
        ],
        rows: [row('["TSOURCE00001"]', null, [row('["TSOURCE00001",null]', '["TSOURCE00001"]')])],
        totals: row('totals', null),
        rowsReturned: 1,
        rowsTotal: 1,
      };
      expect(problemsOf('post', '/reporting/drilldown', report)).toEqual([]);
      const badChild = { ...report, rows: [row('a', null, [{ ...row('b', 'a'), cells: [{ formatted: 'x', raw: true }] } as never])] };
      expect(problemsOf('post', '/reporting/drilldown', badChild)).toEqual(['/rows/0/children/0/cells/0/raw must be string,number,null']);
      const raw: RawEventsReport = { hits: [hit], nextCursor: 'eyJ0IjoxfQ' };
      expect(problemsOf('post', '/reporting/rawevents', raw)).toEqual([]);
      expect(problemsOf('post', '/reporting/rawevents', { hits: [{ ...hit, secret: 1 }], nextCursor: null })).not.toEqual([]);
      expect(problemsOf('post', '/reporting/explorer/hit', hit)).toEqual([]);
      const visitor: ExplorerVisitorReport = {
        visitor: {
          visitorId: hit.visitorId,
          firstSeen: hit.time,
          lastSeen: hit.time,
          entranceHitId: hit.hitId,
          idTrafficSource: hit.idTrafficSource,
          idFunnel: hit.idFunnel,
          countryCode: hit.countryCode,
          ip: hit.ip,
          trackingFields: { c1: 'blue' },
          visitor: { ...hit.visitor },
          visitorTags: [],
          hits: 1,
          conversions: 1,
          revenue: '2.5',
          cost: '0',
        },
        hits: [hit],
        hasMore: false,
      };
      expect(problemsOf('post', '/reporting/explorer/visitor', visitor)).toEqual([]);
      const log: PostbackLogReport = {
        rows: [
          {
            time: hit.time,
            jobId: 'JOB000000001',
            rowIndex: 0,
            hitId: hit.hitId,
            idTrafficSource: hit.idTrafficSource,
            idFunnel: hit.idFunnel,
            url: 'https://example.com/pb?token=********',
            kind: 'postbackUrl',
            status: 'delivered',
            attempts: 1,
            lastError: null,
            updatedAt: hit.time,
          },
        ],
        rowsReturned: 1,
        rowsTotal: 1,
      };
      expect(problemsOf('post', '/reporting/logs/postbacks', log)).toEqual([]);
    });
  });

  it('answers errors as { error, code, details }, and billing routes in the billing body', () => {
    expect(operation(document, 'GET', '/funnel/list')?.responses.default).toEqual({ $ref: '#/components/responses/Error' });
    expect(operation(document, 'GET', '/billing/domains')?.responses.default).toEqual({ $ref: '#/components/responses/BillingError' });
    expect(document.components.schemas.Error).toMatchObject({ required: ['error', 'code', 'details'] });
  });
});

describe('the gateway serves its API documents', () => {
  let app: NestFastifyApplication;
  const registered: { method: string; url: string }[] = [];

  beforeAll(async () => {
    const client = {
      request: async () => {
        throw ServiceError.unauthorized();
      },
      subscribe: () => () => undefined,
      close: async () => undefined,
    } as unknown as ServiceClient;
    app = await createGatewayApp(GatewayModule.forRoot({ client, metrics: createMetricsRegistry(), readiness: [] }), false);
    app
      .getHttpAdapter()
      .getInstance()
      .addHook('onRoute', (route) => {
        for (const method of [route.method].flat()) registered.push({ method, url: route.url });
      });
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());

  it('every /v1 route the gateway registers is in the document (the forwarding catch-all stands for the route table)', async () => {
    const document = (await app.getHttpAdapter().getInstance().inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument;
    const own = registered.filter((r) => r.url.startsWith('/v1/') && r.url !== '/v1/*' && r.method !== 'HEAD');
    expect(own.length).toBeGreaterThanOrEqual(3);
    const missing = own.filter((r) => !operation(document, r.method, r.url.slice(3))).map((r) => `${r.method} ${r.url}`);
    expect(missing).toEqual([]);
  });

  it('GET /v1/openapi.json without a credential, the same document each time', async () => {
    const fastify = app.getHttpAdapter().getInstance();
    const first = await fastify.inject({ method: 'GET', url: '/v1/openapi.json' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(first.json()).toMatchObject({ openapi: '3.1.0', paths: { '/funnel/list': { get: expect.any(Object) } } });
    expect((await fastify.inject({ method: 'GET', url: '/v1/openapi.json/' })).body).toBe(first.body);
  });

  it('GET /v1/docs: a Swagger UI page whose files the gateway serves from swagger-ui-dist', async () => {
    const fastify = app.getHttpAdapter().getInstance();
    const page = await fastify.inject({ method: 'GET', url: '/v1/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual(expect.arrayContaining(['/v1/docs/swagger-ui-bundle.js', '/v1/docs/swagger-ui.css', '/v1/docs/init.js']));
    for (const source of sources) {
      const file = await fastify.inject({ method: 'GET', url: source });
      expect([source, file.statusCode]).toEqual([source, 200]);
      expect(file.body.length).toBeGreaterThan(10);
    }
    expect((await fastify.inject({ method: 'GET', url: '/v1/docs/init.js' })).body).toContain("url: '/v1/openapi.json'");
    expect((await fastify.inject({ method: 'GET', url: '/v1/docs/package.json' })).statusCode).toBe(404);
  });
});
