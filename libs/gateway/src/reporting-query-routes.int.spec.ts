import { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  INTEGRATION_DELIVERY_LOG_SUBJECT,
  IdentityRequestBody,
  IdentitySubjects,
  ReportingQuerySubjects,
  RpcRequest,
  ServiceError,
  parseAttributesQuery,
  parseDrilldownRequest,
  parseExplorerHitRequest,
  parseExplorerVisitorRequest,
  parseIntegrationDeliveryLogRequest,
  parsePostbackLogRequest,
  parseRawEventsRequest,
} from '@funnel/contracts';
import { ServiceClient, createMetricsRegistry } from '@funnel/platform';
import { GatewayModule } from './gateway.module';
import { createGatewayApp } from './create-gateway-app';

/** Keys and what they hold. */
const KEYS: Record<string, string[]> = {
  'reader-key-0123456789abcdef': ['reporting:read'],
  'writer-key-0123456789abcdef': ['reporting:write'],
  'assets-key-0123456789abcdef': ['assets:read', 'assets:write'],
};
const [READER, WRITER, ASSETS] = Object.keys(KEYS);
const ID = '0AbCdEfGhIjK';
const WINDOW = { timeStart: '2026-11-20T00:00:00Z', timeEnd: '2026-11-21T00:00:00Z' };

/** What the reporting service does first with each query: the shared parse functions (its answers are not this test's concern). */
const SERVICE: Record<string, (body: IdentityRequestBody) => unknown> = {
  [ReportingQuerySubjects.attributes]: (b) => parseAttributesQuery(b.query),
  [ReportingQuerySubjects.drilldown]: (b) => parseDrilldownRequest(b.body),
  [ReportingQuerySubjects.rawEvents]: (b) => parseRawEventsRequest(b.body),
  [ReportingQuerySubjects.explorerVisitor]: (b) => parseExplorerVisitorRequest(b.body),
  [ReportingQuerySubjects.explorerHit]: (b) => parseExplorerHitRequest(b.body),
  [ReportingQuerySubjects.postbackLog]: (b) => parsePostbackLogRequest(b.body),
  [INTEGRATION_DELIVERY_LOG_SUBJECT]: (b) => parseIntegrationDeliveryLogRequest(b.body),
};

/** method, path, subject, a valid body (undefined: none). */
const ROUTES: [method: 'GET' | 'POST', path: string, subject: string, body: unknown][] = [
  ['GET', '/reporting/attributes', ReportingQuerySubjects.attributes, undefined],
  ['POST', '/reporting/drilldown', ReportingQuerySubjects.drilldown, { ...WINDOW, groupings: [{ groupBy: 'country' }] }],
  ['POST', '/reporting/rawevents', ReportingQuerySubjects.rawEvents, { ...WINDOW, limit: 10 }],
  ['POST', '/reporting/explorer/visitor', ReportingQuerySubjects.explorerVisitor, { hitId: ID }],
  ['POST', '/reporting/explorer/hit', ReportingQuerySubjects.explorerHit, { hitId: ID }],
  ['POST', '/reporting/logs/postbacks', ReportingQuerySubjects.postbackLog, { ...WINDOW, statuses: ['failed'] }],
  ['POST', '/reporting/logs/integrationdeliveries', INTEGRATION_DELIVERY_LOG_SUBJECT, { ...WINDOW, kinds: ['conversions'], statuses: ['rejected'] }],
];

describe('the reporting query routes', () => {
  let app: NestFastifyApplication;
  const forwarded: { subject: string; payload: RpcRequest<IdentityRequestBody> }[] = [];
  const inject = (method: string, url: string, key?: string, payload?: unknown) =>
    app
      .getHttpAdapter()
      .getInstance()
      .inject({
        method: method as 'GET',
        url: `/v1${url}`,
        headers: key ? { 'x-api-key': key } : {},
        ...(payload !== undefined ? { payload: payload as object } : {}),
      });

  beforeAll(async () => {
    const client = {
      request: async <T>(subject: string, payload: RpcRequest<IdentityRequestBody>) => {
        if (subject === IdentitySubjects.authenticateApiKey) {
          const permissions = KEYS[(payload.body as unknown as { key: string }).key];
          if (!permissions) throw ServiceError.unauthorized();
          return { accountId: 'ACCOUNT00001', userId: 'USER00000001', permissions, keyId: 'k' } as T;
        }
        if (subject === IdentitySubjects.signingKeys) return { keys: [] } as T;
        forwarded.push({ subject, payload });
        const serve = SERVICE[subject];
        if (!serve) throw new Error(`no service for ${subject}`);
        return { served: subject, request: serve(payload.body) } as T;
      },
      subscribe: () => () => undefined,
      close: async () => undefined,
    } as unknown as ServiceClient;
    app = await createGatewayApp(GatewayModule.forRoot({ client, metrics: createMetricsRegistry(), readiness: [], apiKeyCacheMs: 0 }), false);
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
  });
  afterAll(() => app.close());
  beforeEach(() => forwarded.splice(0));

  it.each(ROUTES.map(([method, path, subject, body]) => ({ method, path, subject, body })))(
    '$method $path forwards to its subject with the caller, with and without the trailing slash',
    async ({ method, path, subject, body }) => {
      for (const url of [path, `${path}/`]) {
        forwarded.splice(0);
        const answer = await inject(method, url, READER, body);
        expect([url, answer.statusCode]).toEqual([url, 200]);
        expect(answer.json()).toMatchObject({ served: subject });
        expect(forwarded).toHaveLength(1);
        expect(forwarded[0].subject).toBe(subject);
        expect(forwarded[0].payload.context).toMatchObject({ accountId: 'ACCOUNT00001', userId: 'USER00000001', permissions: ['reporting:read'] });
        expect(forwarded[0].payload.body).toMatchObject({ query: {}, ...(body !== undefined ? { body } : {}) });
      }
    },
  );

  it('answers 401 without a credential and 403 to a credential without reporting:read, forwarding nothing', async () => {
    for (const [method, path, , body] of ROUTES) {
      expect([path, (await inject(method, path, undefined, body)).statusCode]).toEqual([path, 401]);
      const refused = await inject(method, path, ASSETS, body);
      expect([path, refused.statusCode]).toEqual([path, 403]);
      expect(refused.json()).toMatchObject({ code: 'AUTH.FORBIDDEN', error: expect.stringContaining('reporting:read') });
    }
    expect(forwarded).toEqual([]);
  });

  it('serves a credential holding reporting:write (which implies reporting:read)', async () => {
    for (const [method, path, , body] of ROUTES) expect([path, (await inject(method, path, WRITER, body)).statusCode]).toEqual([path, 200]);
    expect(forwarded).toHaveLength(ROUTES.length);
  });

  it('passes the attributes query on (idTrafficSource), without the key parameter', async () => {
    const answer = await inject('GET', `/reporting/attributes/?idTrafficSource=${ID}&key=${READER}`);
    expect(answer.statusCode).toBe(200);
    expect(answer.json()).toEqual({ served: ReportingQuerySubjects.attributes, request: { idTrafficSource: ID } });
    expect(forwarded[0].payload.body.query).toEqual({ idTrafficSource: ID });
  });

  it('answers the standard 400 naming the field when the service refuses a body', async () => {
    const answer = await inject('POST', '/reporting/drilldown/', READER, { ...WINDOW, groupings: [{ groupBy: 'country' }], paging: { length: 10_001 } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json()).toEqual({
      error: expect.stringContaining('paging.length'),
      code: 'REQUEST.VALIDATION_FAILED',
      details: [{ field: 'paging.length', code: 'max', message: expect.stringContaining('10000') }],
    });
  });

  it('answers 400 naming the field for an integration deliveries query the service refuses (an unknown status, a job id that is none)', async () => {
    for (const [body, field] of [
      [{ ...WINDOW, statuses: ['lost'] }, 'statuses'],
      [{ ...WINDOW, jobIds: ['not an id'] }, 'jobIds'],
      [{ ...WINDOW, paging: { length: 1001 } }, 'paging.length'],
    ] as const) {
      const answer = await inject('POST', '/reporting/logs/integrationdeliveries', READER, body);
      expect([field, answer.statusCode]).toEqual([field, 400]);
      expect(answer.json().details[0].field).toBe(field);
    }
  });

  it('serves no other method on the query paths', async () => {
    expect((await inject('GET', '/reporting/drilldown', READER)).statusCode).toBe(404);
    expect((await inject('POST', '/reporting/attributes', READER, {})).statusCode).toBe(404);
  });
});
