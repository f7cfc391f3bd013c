import { ASSET_KINDS, ASSET_OPERATION_ROUTES, AssetKindDescriptor, Permission, READ_OPERATIONS, assetSubject } from '@funnel/contracts';

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
  /** How the service's reply becomes the HTTP body. */
  reply: 'result' | 'whole';
  /** Forward the raw bearer token (validate accepts expired tokens, so the gateway cannot check it). */
  forwardBearerToken?: boolean;
  /** Forward the client's address (login throttling). */
  forwardSourceAddress?: boolean;
}

export function assetRoutes(kinds: readonly AssetKindDescriptor[] = ASSET_KINDS): ForwardedRoute[] {
  return kinds.flatMap((kind) =>
    kind.paths.flatMap((prefix) =>
      kind.operations.map((operation) => {
        const { method, path } = ASSET_OPERATION_ROUTES[operation];
        return {
          method,
          path: `${prefix}/${path}`,
          subject: assetSubject(kind.kind, operation),
          permission: READ_OPERATIONS.has(operation) ? ('assets:read' as const) : ('assets:write' as const),
          reply: 'result' as const,
        };
      }),
    ),
  );
}

/** Method + path lookup; paths are matched without their trailing slash. */
export class RouteTable {
  private readonly routes = new Map<string, ForwardedRoute>();
  private readonly paths = new Set<string>();

  constructor(routes: readonly ForwardedRoute[]) {
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      if (this.routes.has(key)) throw new Error(`duplicate route ${key}`);
      this.routes.set(key, r);
      this.paths.add(r.path);
    }
  }

  match(method: string, path: string): ForwardedRoute | 'method-not-allowed' | undefined {
    const normalized = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const route = this.routes.get(`${method} ${normalized}`);
    if (route) return route;
    return this.paths.has(normalized) ? 'method-not-allowed' : undefined;
  }

  all(): ForwardedRoute[] {
    return [...this.routes.values()];
  }
}
