import { permissionsImplying } from '@funnel/contracts';
import type { ForwardedRoute } from '../../route-table';
import { AssetRecordSchemas, assetOperationDoc } from './asset-docs';
import { DtoSchemas, SCHEMA_REF_PREFIX, Schema } from './dto-schemas';
import type { OwnRoute, RouteDoc } from './route-doc';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, Schema>>; components: Record<string, Record<string, Schema>> };

/** The security schemes a credential may come in (see README "Authentication"). */
const SECURITY_SCHEMES = {
  ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'an integration API key' },
  ApiKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'an integration API key, as a query parameter' },
  BearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token from /auth/login' },
};
const ANY_CREDENTIAL = Object.keys(SECURITY_SCHEMES).map((name) => ({ [name]: [] }));

const ERROR_DETAIL = {
  type: 'object',
  required: ['field', 'code', 'message'],
  properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' }, line: { type: 'integer' }, column: { type: 'integer' } },
  additionalProperties: false,
};

/** The error bodies (README "Errors and limits"); a route's `errorBody` picks the billing one. */
const ERROR_SCHEMAS: Record<string, Schema> = {
  ErrorDetail: ERROR_DETAIL,
  Error: {
    type: 'object',
    required: ['error', 'code', 'details'],
    properties: {
      error: { type: 'string' },
      code: { type: 'string', description: 'e.g. ASSET.NOT_FOUND' },
      details: { type: 'array', items: { $ref: `${SCHEMA_REF_PREFIX}ErrorDetail` } },
    },
    additionalProperties: false,
  },
  InternalError: {
    type: 'object',
    required: ['correlationId'],
    properties: { correlationId: { type: 'string', description: 'the id the failure is logged with' } },
    additionalProperties: false,
  },
  BillingError: {
    type: 'object',
    required: ['success', 'error_code', 'error_message'],
    properties: {
      success: { const: false },
      error_code: { type: 'string' },
      error_message: { type: 'string' },
      details: { type: 'array', items: { $ref: `${SCHEMA_REF_PREFIX}ErrorDetail` } },
      correlationId: { type: 'string', description: 'on a 500 only' },
    },
    additionalProperties: false,
  },
};

const RETRY_AFTER = { 'Retry-After': { description: 'seconds to wait before retrying (429, 503)', schema: { type: 'integer' } } };
const ERROR_RESPONSES = {
  Error: {
    description: 'an error: 400 bad input (nothing stored), 401, 403, 404, 409, 412, 413, 415, 429 (with Retry-After), 503 (with Retry-After), 507 STORE.FULL',
    headers: RETRY_AFTER,
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF_PREFIX}Error` } } },
  },
  InternalError: {
    description: 'an unexpected failure: only the correlation id, which the log has with the failure',
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF_PREFIX}InternalError` } } },
  },
  BillingError: {
    description: 'an error, in the billing body shape (a 500 adds correlationId)',
    headers: RETRY_AFTER,
    content: { 'application/json': { schema: { $ref: `${SCHEMA_REF_PREFIX}BillingError` } } },
  },
};

/** One route as the document sees it: a forwarded route or one the gateway serves itself. */
interface DocumentedRoute {
  method: string;
  path: string;
  permission: string;
  doc: RouteDoc;
  billing: boolean;
  headers: readonly string[];
}

/**
 * The OpenAPI 3.1 document of the /v1 API, generated from the route table (each route's permission,
 * error shape and `doc`; asset routes from their kind's descriptor and DTO) and the gateway's own
 * routes. Built once; nothing in it is written by hand apart from what routes declare.
 */
export function buildOpenApiDocument(routes: readonly ForwardedRoute[], ownRoutes: readonly OwnRoute[], version = '1'): OpenApiDocument {
  const dtos = new DtoSchemas();
  for (const route of routes) {
    if (route.doc?.asset?.kind.docs?.schemas) dtos.addNamed(route.doc.asset.kind.docs.schemas);
    if (route.doc?.schemas) dtos.addNamed(route.doc.schemas);
  }
  const records = new AssetRecordSchemas(dtos);
  const documented: DocumentedRoute[] = [
    ...routes.map((route) => ({
      method: route.method,
      path: route.path,
      permission: route.permission,
      doc: route.doc?.asset
        ? { ...assetOperationDoc(records, route.doc.asset.kind, route.doc.asset.operation, route.renames, route.noAnswer === true), ...withoutAsset(route.doc) }
        : { ...(route.doc ?? {}), ...(route.noAnswer ? { answer: undefined } : {}) },
      billing: route.errorBody === 'billing',
      headers: route.forwardHeaders ?? [],
    })),
    ...ownRoutes.map((route) => ({ ...route, billing: false, headers: [] })),
  ];
  const paths: Record<string, Record<string, Schema>> = {};
  const operationIds = new Set<string>();
  for (const route of documented) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const item = (paths[path] ??= {});
    const method = route.method.toLowerCase();
    if (item[method]) throw new Error(`${route.method} ${route.path} is documented twice`);
    item[method] = operationOf(route, dtos, uniqueId(operationIds, route.method, route.path));
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'funnel-service /v1 API',
      version,
      description:
        'Generated by the gateway from its route table, the asset kind descriptors and the class-validator DTOs the services validate with. ' +
        'Every path is also served with a trailing slash, and every GET also answers HEAD. Each answer carries X-Correlation-Id.',
    },
    servers: [{ url: '/v1' }],
    security: ANY_CREDENTIAL,
    tags: [...new Set(documented.map((r) => tagOf(r)))].sort().map((name) => ({ name })),
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      securitySchemes: SECURITY_SCHEMES,
      responses: ERROR_RESPONSES,
      schemas: { ...ERROR_SCHEMAS, ...dtos.components(), ...records.all() },
    },
  };
}

function withoutAsset(doc: RouteDoc): RouteDoc {
  const { asset, ...rest } = doc;
  void asset;
  return rest;
}

function tagOf(route: DocumentedRoute): string {
  return route.doc.tag ?? route.path.split('/')[1] ?? 'api';
}

function uniqueId(taken: Set<string>, method: string, path: string): string {
  const words = path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  let id = method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  while (taken.has(id)) id += '_';
  taken.add(id);
  return id;
}

function operationOf(route: DocumentedRoute, dtos: DtoSchemas, operationId: string): Schema {
  const { doc } = route;
  const parameters: Schema[] = [];
  for (const [, name] of route.path.matchAll(/:([A-Za-z0-9_]+)/g)) parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  for (const q of doc.query ?? []) {
    parameters.push({
      name: q.name,
      in: 'query',
      required: q.required === true,
      schema: dtos.resolve(q.schema ?? { type: 'string' }),
      ...(q.description ? { description: q.description } : {}),
    });
  }
  const described = new Set((doc.headers ?? []).map((h) => h.name.toLowerCase()));
  for (const name of route.headers)
    if (!described.has(name.toLowerCase())) parameters.push({ name, in: 'header', required: false, schema: { type: 'string' } });
  for (const h of doc.headers ?? [])
    parameters.push({ name: h.name, in: 'header', required: h.required === true, description: h.description, schema: { type: 'string' } });
  const status = String(doc.status ?? 200);
  const success: Schema =
    doc.answer !== undefined
      ? {
          description: doc.answerOptional ? 'the answer (or no body, see the description)' : 'the answer',
          content: {
            [doc.contentType ?? 'application/json']: {
              schema: dtos.resolve(doc.answer),
              ...(doc.answerExample !== undefined ? { example: doc.answerExample } : {}),
            },
          },
          ...(doc.answerOptional ? { 'x-optional-body': true } : {}),
        }
      : { description: 'done: no body' };
  const errors = route.billing ? 'BillingError' : 'Error';
  return {
    operationId,
    tags: [tagOf(route)],
    ...(doc.summary ? { summary: doc.summary } : {}),
    description: [doc.description, doc.userSessionOnly ? USER_SESSION_ONLY : permissionText(route.permission)].filter(Boolean).join('\n\n'),
    'x-permission': route.permission,
    ...(route.permission === 'public' ? { security: [] } : doc.userSessionOnly ? { security: [{ BearerAuth: [] }] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.body !== undefined
      ? {
          requestBody: {
            required: doc.bodyOptional !== true,
            content: { 'application/json': { schema: dtos.resolve(doc.body), ...(doc.bodyExample !== undefined ? { example: doc.bodyExample } : {}) } },
          },
        }
      : {}),
    responses: {
      [status]: success,
      '500': { $ref: `#/components/responses/${route.billing ? 'BillingError' : 'InternalError'}` },
      default: { $ref: `#/components/responses/${errors}` },
    },
  };
}

const USER_SESSION_ONLY = "A user's access token only: an API key is refused (403 `AUTH.FORBIDDEN`).";

function permissionText(permission: string): string {
  if (permission === 'public') return 'Public: no credential needed.';
  if (permission === 'authenticated') return 'Any valid credential.';
  const implying = permissionsImplying(permission);
  const implied = implying.length ? ` (or ${implying.map((p) => `\`${p}\``).join(', ')}, which implies it)` : '';
  return `Needs the \`${permission}\` permission${implied}.`;
}
