import SwaggerParser from '@apidevtools/swagger-parser';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { ASSET_KINDS, FUNNEL_NODE_TYPES, ServiceError } from '@funnel/contracts';
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
