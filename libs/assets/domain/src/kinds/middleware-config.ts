import { MIDDLEWARE_PRIORITY_MAX, MIDDLEWARE_ROUTES_MAX, MIDDLEWARE_SCHEMA_VERSION } from '@funnel/contracts';
import { FALLBACK_ROUTE_KEY, ROUTE_KEY_PATTERN, isRouteKey } from '@funnel/visitor-context';
import type { AssetRecord } from '../asset-events';
import { headerProblems, isAbsoluteHttpUrl } from './http-rules';
import type { FieldProblem, KindRules } from './kind-rules';

export interface MiddlewareRoute {
  idRoute: string;
  priority?: number;
  isDefault?: boolean;
}

interface Destination {
  type?: string;
  method?: string;
  url?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
  basicAuth?: { username: string; password?: string | null } | null;
  hmacSecret?: string | null;
}

const routesOf = (record: AssetRecord) => (record.routes ?? []) as MiddlewareRoute[];
const destinationOf = (record: AssetRecord) => (record.destination ?? {}) as Destination;

/** The default route: marked so, or named `default` (a route of that name can be nothing else). */
const isDefaultRoute = (route: MiddlewareRoute) => route.isDefault === true || route.idRoute === FALLBACK_ROUTE_KEY;

/** The default route as stored, added when a config has none. */
export const DEFAULT_MIDDLEWARE_ROUTE: Readonly<Required<MiddlewareRoute>> = { idRoute: FALLBACK_ROUTE_KEY, priority: 0, isDefault: true };

/**
 * Routes of a middleware config, as sent: at most one default route (`idRoute: "default"`,
 * priority 0); every other route has a route key and a priority 1..255 of its own, and no idRoute
 * is repeated. With the default added, at most 64 routes.
 */
export function middlewareRouteProblems(routes: readonly MiddlewareRoute[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const ids = new Set<string>();
  const priorities = new Set<number>();
  let defaults = 0;
  routes.forEach((route, i) => {
    const at = `routes[${i}]`;
    if (isDefaultRoute(route)) {
      defaults += 1;
      if (defaults > 1) problems.push({ field: `${at}.isDefault`, code: 'unique', message: `${at}: exactly one route is the default` });
      if (route.idRoute !== FALLBACK_ROUTE_KEY)
        problems.push({ field: `${at}.idRoute`, code: 'defaultRoute', message: `${at}.idRoute: the default route's idRoute is "${FALLBACK_ROUTE_KEY}"` });
      if (route.isDefault === false)
        problems.push({ field: `${at}.isDefault`, code: 'defaultRoute', message: `${at}.isDefault: "${FALLBACK_ROUTE_KEY}" is the default route's idRoute` });
      if (route.priority !== undefined && route.priority !== 0)
        problems.push({ field: `${at}.priority`, code: 'defaultRoute', message: `${at}.priority: the default route's priority is 0` });
      return;
    }
    if (!isRouteKey(route.idRoute)) {
      problems.push({ field: `${at}.idRoute`, code: 'pattern', message: `${at}.idRoute must match ${ROUTE_KEY_PATTERN.source}` });
    } else if (ids.has(route.idRoute)) {
      problems.push({ field: `${at}.idRoute`, code: 'unique', message: `${at}.idRoute "${route.idRoute}" is the idRoute of an earlier route` });
    }
    ids.add(route.idRoute);
    if (route.priority === undefined) {
      problems.push({ field: `${at}.priority`, code: 'required', message: `${at}.priority is required (1..${MIDDLEWARE_PRIORITY_MAX})` });
    } else if (route.priority < 1) {
      problems.push({ field: `${at}.priority`, code: 'min', message: `${at}.priority must be 1..${MIDDLEWARE_PRIORITY_MAX} (0 is the default route's)` });
    } else if (priorities.has(route.priority)) {
      problems.push({ field: `${at}.priority`, code: 'unique', message: `${at}.priority ${route.priority} is the priority of an earlier route` });
    }
    if (route.priority !== undefined) priorities.add(route.priority);
  });
  if (routes.length - defaults + 1 > MIDDLEWARE_ROUTES_MAX) {
    problems.push({ field: 'routes', code: 'arrayMaxSize', message: `routes: at most ${MIDDLEWARE_ROUTES_MAX} routes, the default route included` });
  }
  return problems;
}

/** The routes as stored: the default route first, then the others in ascending priority (the order they are evaluated in). */
export function normalizeMiddlewareRoutes(routes: readonly MiddlewareRoute[]): Required<MiddlewareRoute>[] {
  const others = routes
    .filter((route) => !isDefaultRoute(route))
    .map((route) => ({ idRoute: route.idRoute, priority: route.priority as number, isDefault: false }))
    .sort((a, b) => a.priority - b.priority);
  return [{ ...DEFAULT_MIDDLEWARE_ROUTE }, ...others];
}

function destinationProblems(destination: Destination): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!isAbsoluteHttpUrl(String(destination.url ?? ''))) {
    problems.push({ field: 'destination.url', code: 'isUrl', message: 'destination.url must be an absolute http(s) URL without credentials' });
  }
  problems.push(...headerProblems(destination.headers, 'destination.headers'));
  return problems;
}

/** The destination as stored: its known fields only; a removed basicAuth (null) is left out, with its password. */
function normalizeDestination(destination: Destination): Destination {
  const { type, method, url, timeoutMs, headers, basicAuth, hmacSecret } = destination;
  const stored: Destination = { type, method, url, timeoutMs, headers: { ...(headers ?? {}) } };
  if (basicAuth) {
    stored.basicAuth = { username: basicAuth.username };
    if (basicAuth.password !== undefined) stored.basicAuth.password = basicAuth.password;
  }
  if (hmacSecret !== undefined) stored.hmacSecret = hmacSecret;
  return stored;
}

/**
 * Middleware configs: routes (one default, others by ascending priority) and an http destination
 * whose basic-auth password and HMAC secret are write-only (the pipeline's secret fields). The slim
 * record shows the destination's type and method, never its URL, headers or secrets.
 */
export const middlewareConfigRules: KindRules = {
  check: (record) => [...middlewareRouteProblems(routesOf(record)), ...destinationProblems(destinationOf(record))],
  normalize: (record) => ({
    ...record,
    schemaVersion: MIDDLEWARE_SCHEMA_VERSION,
    routes: normalizeMiddlewareRoutes(routesOf(record)),
    destination: normalizeDestination(destinationOf(record)),
  }),
  slim: (record) => ({ destinationType: destinationOf(record).type, destinationMethod: destinationOf(record).method }),
};
