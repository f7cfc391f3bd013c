import type { ErrorBodyShape } from './http-errors';
import {
  ASSET_KINDS,
  ASSET_OPERATION_ROUTES,
  AssetKindDescriptor,
  AssetOperation,
  CONDITIONAL_OPERATIONS,
  Permission,
  READ_OPERATIONS,
  assetSubject,
  servedOperations,
} from '@funnel/contracts';
import { FieldRenames, renamesOf } from './field-renames';
import type { RouteDoc } from './docs/openapi/route-doc';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** One /v1 route that the gateway forwards to a service subject as `{ context, body: { query, body } }`. */
export interface ForwardedRoute {
  method: HttpMethod;
  /** Path under /v1, without trailing slash (both forms are served). */
  path: string;
  subject: string;
  /**
   * Who may call it: holders of a permission; any verified credential ('authenticated'); or anyone
   * ('public': the service itself checks what the request carries, as login and validate do).
   */
  permission: Permission | 'authenticated' | 'public';
  /**
   * How the service's reply becomes the HTTP body: its `result` (an AssetReply, whose `revision` and
   * `nextCursor` the gateway answers as the `ETag` and `X-Next-Cursor` headers), or the whole reply.
   */
  reply: 'result' | 'whole';
  /** Forward the raw bearer token (validate accepts expired tokens, so the gateway cannot check it). */
  forwardBearerToken?: boolean;
  /** Forward the client's address (login throttling). */
  forwardSourceAddress?: boolean;
  /** Request headers forwarded to the service (lower-case names), e.g. `idempotency-key`. */
  forwardHeaders?: readonly string[];
  /** The shape of its error answers: the standard `{ error, code, details }` (default), or the billing body. */
  errorBody?: ErrorBodyShape;
  /** A field-renaming view (legacy `/campaign/*`): names changed on the request, the answer and errors (see AssetKindView). */
  renames?: FieldRenames;
  /** The largest body it takes, in bytes (default MAX_BODY_BYTES, 1 MiB; at most LARGEST_BODY_BYTES). */
  maxBodyBytes?: number;
  /** How long the gateway waits for the service (default RPC_TIMEOUT_MS): longer for reports, which bound their own queries. */
  timeoutMs?: number;
  /** The answer is dropped: the route answers no body (the legacy campaign save). */
  noAnswer?: boolean;
  /** What the API document (GET /v1/openapi.json) says of the route: its body DTO, query and answer schema. */
  doc?: RouteDoc;
}

/** A route matched to a path, with the path's parameters (`/billing/domains/:domain` gives `{ domain }`). */
export interface MatchedRoute {
  route: ForwardedRoute;
  params: Record<string, string>;
}

export function assetRoutes(kinds: readonly AssetKindDescriptor[] = ASSET_KINDS): ForwardedRoute[] {
  return kinds.flatMap((kind) => {
    const ownPathRenames = (operation: AssetOperation) => {
      const view = kind.views?.find((v) => v.answersOnOwnPaths?.includes(operation));
      return view ? { answer: renamesOf(view.fieldNames).answer } : undefined;
    };
    const own = kind.paths.flatMap((prefix) => servedOperations(kind).map((operation) => assetRoute(kind, prefix, operation, ownPathRenames(operation))));
    const views = (kind.views ?? []).flatMap((view) =>
      view.paths.flatMap((prefix) =>
        servedOperations(view).map((operation) => ({
          ...assetRoute(kind, prefix, operation, renamesOf(view.fieldNames, operation)),
          ...(view.noAnswer?.includes(operation) ? { noAnswer: true } : {}),
        })),
      ),
    );
    return [...own, ...views];
  });
}

/** Conditional writes take `If-Match: W/"<revision>"` (see CONDITIONAL_OPERATIONS). */
const IF_MATCH = ['if-match'] as const;

function assetRoute(kind: AssetKindDescriptor, prefix: string, operation: AssetOperation, renames: FieldRenames | undefined): ForwardedRoute {
  const { method, path } = ASSET_OPERATION_ROUTES[operation];
  return {
    method,
    path: `${prefix}/${path}`,
    subject: assetSubject(kind.kind, operation),
    permission: READ_OPERATIONS.has(operation) ? ('assets:read' as const) : ('assets:write' as const),
    reply: 'result' as const,
    ...(CONDITIONAL_OPERATIONS.has(operation) ? { forwardHeaders: IF_MATCH } : {}),
    ...(renames ? { renames } : {}),
    doc: { asset: { kind, operation } },
  };
}

/** The parameters of a fixed path: none (shared, hence frozen). */
const NO_PARAMS: Record<string, string> = Object.freeze({});

/** The path of a /v1 request URL under /v1, without the query (`/v1/tag/find/?id=1` gives `/tag/find/`). */
export function pathUnderV1(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url.slice(3) : url.slice(3, query);
}

interface PatternRoute {
  route: ForwardedRoute;
  /** The path's segments; `:name` ones match any one non-empty segment. */
  segments: string[];
}

/**
 * Method + path lookup; paths are matched without their trailing slash. A path may have parameter
 * segments (`/billing/domains/:domain`); a fixed path wins over a pattern (`/billing/domains/check`).
 */
export class RouteTable {
  private readonly routes = new Map<string, ForwardedRoute>();
  /** The fixed paths' matches by path, then method: built once, so a lookup allocates nothing. */
  private readonly fixed = new Map<string, Map<string, MatchedRoute>>();
  private readonly patterns: PatternRoute[] = [];

  constructor(routes: readonly ForwardedRoute[]) {
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      if (this.routes.has(key)) throw new Error(`duplicate route ${key}`);
      this.routes.set(key, r);
      if (r.path.includes('/:')) this.patterns.push({ route: r, segments: r.path.split('/') });
      else {
        const byMethod = this.fixed.get(r.path) ?? new Map<string, MatchedRoute>();
        byMethod.set(r.method, { route: r, params: NO_PARAMS });
        this.fixed.set(r.path, byMethod);
      }
    }
  }

  match(method: string, path: string): ForwardedRoute | 'method-not-allowed' | undefined {
    const resolved = this.resolve(method, path);
    return resolved && resolved !== 'method-not-allowed' ? resolved.route : resolved;
  }

  /** The route and its path parameters (percent-decoded); a parameter that does not decode matches nothing. */
  resolve(method: string, path: string): MatchedRoute | 'method-not-allowed' | undefined {
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const byMethod = this.fixed.get(normalized);
    const fixed = byMethod?.get(method);
    if (fixed) return fixed;
    let otherMethod = byMethod !== undefined;
    if (this.patterns.length) {
      const segments = normalized.split('/');
      for (const pattern of this.patterns) {
        const params = paramsOf(pattern.segments, segments);
        if (!params) continue;
        if (pattern.route.method === method) return { route: pattern.route, params };
        otherMethod = true;
      }
    }
    return otherMethod ? 'method-not-allowed' : undefined;
  }

  /** The error body shape of the routes on this path, whatever their method (a wrong method answers in it too). */
  errorBodyOf(path: string): ErrorBodyShape | undefined {
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    for (const route of this.routes.values()) if (route.path === normalized && route.errorBody) return route.errorBody;
    const segments = normalized.split('/');
    return this.patterns.find((pattern) => pattern.route.errorBody && paramsOf(pattern.segments, segments))?.route.errorBody;
  }

  all(): ForwardedRoute[] {
    return [...this.routes.values()];
  }
}

function paramsOf(pattern: readonly string[], segments: readonly string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i];
    if (expected.startsWith(':')) {
      if (segments[i] === '') return undefined;
      try {
        params[expected.slice(1)] = decodeURIComponent(segments[i]);
      } catch {
        return undefined;
      }
    } else if (expected !== segments[i]) {
      return undefined;
    }
  }
  return params;
}
