import type { AssetKindDescriptor, AssetOperation, JsonSchema } from '@funnel/contracts';

/** A class-validator DTO: its schema is converted from the class's decorators (see dto-schemas). */
export type DtoClass = new () => object;

/** A schema, or a DTO class standing for its schema (also anywhere inside a schema, e.g. `{ type: 'array', items: SomeDto }`). */
export type SchemaSource = JsonSchema | DtoClass;

/** A query parameter of a route. */
export interface QueryParamDoc {
  name: string;
  required?: boolean;
  schema?: SchemaSource;
  description?: string;
}

/**
 * What the API document says of one route, declared with the route (route tables, controllers):
 * the body it takes (a DTO the service validates with, or a schema), its query parameters and its
 * answer. Error answers are the same for every route (the route's error body shape).
 */
export interface RouteDoc {
  summary?: string;
  description?: string;
  /** The group the route is listed under (default: the path's first segment). */
  tag?: string;
  body?: SchemaSource;
  /** The body may be left out (a DELETE that also takes the ids in the query). */
  bodyOptional?: boolean;
  query?: QueryParamDoc[];
  /** The success answer's body; absent: the route answers 200 with no body. */
  answer?: SchemaSource;
  /** A worked example of the body (the media type's `example`). */
  bodyExample?: unknown;
  /** A worked example of the success answer. */
  answerExample?: unknown;
  /** The success status (default 200). */
  status?: number;
  /** The answer is sometimes empty (an upsert that was given the id answers no body). */
  answerOptional?: boolean;
  /** Media type of the answer (default application/json). */
  contentType?: string;
  /** Only a user's access token is taken (the service answers an API key 403): documented as BearerAuth alone. */
  userSessionOnly?: boolean;
  /** Request headers the route reads, e.g. `Idempotency-Key`. */
  headers?: { name: string; description: string; required?: boolean }[];
  /** Named schemas the route's schemas refer to by `$ref` (`#/components/schemas/<name>`), e.g. a report row that nests its children. */
  schemas?: Readonly<Record<string, JsonSchema>>;
  /** An asset route: everything above is derived from the kind's descriptor and the operation. */
  asset?: { kind: AssetKindDescriptor; operation: AssetOperation };
}

/** A /v1 route the gateway serves itself (a Nest controller, not the route table): documented the same way. */
export interface OwnRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Path under /v1, `:name` for a parameter. */
  path: string;
  permission: string;
  doc: RouteDoc;
}
