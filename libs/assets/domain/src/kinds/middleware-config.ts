import {
  MIDDLEWARE_BODY_FIELD,
  MIDDLEWARE_PRIORITY_MAX,
  MIDDLEWARE_ROUTES_MAX,
  MIDDLEWARE_RULE_OPERATORS,
  MIDDLEWARE_RULE_VALUE_MAX,
  MIDDLEWARE_SCHEMA_VERSION,
  MIDDLEWARE_STATUS_FIELD,
  type MiddlewareRuleOperator,
} from '@funnel/contracts';
import { FALLBACK_ROUTE_KEY, ROUTE_KEY_PATTERN, isRouteKey } from '@funnel/visitor-context';
import type { AssetRecord } from '../asset-events';
import { headerProblems, isAbsoluteHttpUrl } from './http-rules';
import type { FieldProblem, KindRules } from './kind-rules';

export interface MiddlewareRouteRule {
  field: string;
  operator: MiddlewareRuleOperator;
  value?: unknown;
}

export interface MiddlewareRoute {
  idRoute: string;
  priority?: number;
  isDefault?: boolean;
  rules?: MiddlewareRouteRule[];
}

/** `body_json`, or `body_json.<key>[.<key>...]`: at most 16 keys of 1..64 characters without a dot. */
const BODY_FIELD_PATTERN = new RegExp(`^${MIDDLEWARE_BODY_FIELD}(?:\\.[^.\\s]{1,64}){0,16}$`);

/**
 * A route's rules: each a known field (`status_code`, `body_json[.<path>]`) and operator, with a
 * value its operator takes: none for `exists`; a number for `gt`/`lt`; a string (1,024 characters
 * at most), number or boolean for `is`/`isNot`/`contains`; `status_code` compares a whole number
 * 100..599 and is never `contains`.
 */
export function middlewareRuleProblems(rules: readonly MiddlewareRouteRule[], at: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  rules.forEach((rule, i) => {
    const where = `${at}.rules[${i}]`;
    const isStatus = rule.field === MIDDLEWARE_STATUS_FIELD;
    if (!isStatus && !BODY_FIELD_PATTERN.test(rule.field)) {
      problems.push({
        field: `${where}.field`,
        code: 'pattern',
        message: `${where}.field must be "${MIDDLEWARE_STATUS_FIELD}" or "${MIDDLEWARE_BODY_FIELD}.<path>" (keys separated by dots, at most 16 keys of 1..64 characters)`,
      });
      return;
    }
    const { operator, value } = rule;
    const valueProblem = (message: string) => problems.push({ field: `${where}.value`, code: 'ruleValue', message: `${where}.value ${message}` });
    if (!(MIDDLEWARE_RULE_OPERATORS as readonly string[]).includes(operator)) return;
    if (operator === 'exists') {
      if (value !== undefined) valueProblem('is not taken by exists (leave it out)');
    } else if (value === undefined) {
      valueProblem(`is required by ${operator}`);
    } else if (isStatus) {
      if (operator === 'contains')
        problems.push({
          field: `${where}.operator`,
          code: 'ruleOperator',
          message: `${where}.operator: ${MIDDLEWARE_STATUS_FIELD} takes is, isNot, exists, gt or lt`,
        });
      else if (!Number.isInteger(value) || (value as number) < 100 || (value as number) > 599) valueProblem('must be an HTTP status, a whole number 100..599');
    } else if (operator === 'gt' || operator === 'lt') {
      if (typeof value !== 'number' || !Number.isFinite(value)) valueProblem(`must be a number for ${operator}`);
    } else if (typeof value === 'string') {
      if (value.length > MIDDLEWARE_RULE_VALUE_MAX) valueProblem(`must be at most ${MIDDLEWARE_RULE_VALUE_MAX} characters`);
    } else if (!(typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) {
      valueProblem('must be a string, a number or a boolean');
    }
  });
  return problems;
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
export const DEFAULT_MIDDLEWARE_ROUTE: Readonly<Required<Omit<MiddlewareRoute, 'rules'>>> = { idRoute: FALLBACK_ROUTE_KEY, priority: 0, isDefault: true };

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
      if (route.rules !== undefined && route.rules.length > 0)
        problems.push({
          field: `${at}.rules`,
          code: 'defaultRoute',
          message: `${at}.rules: the default route has no rules (it is taken when no other route matches)`,
        });
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
    problems.push(...middlewareRuleProblems(route.rules ?? [], at));
  });
  if (routes.length - defaults + 1 > MIDDLEWARE_ROUTES_MAX) {
    problems.push({ field: 'routes', code: 'arrayMaxSize', message: `routes: at most ${MIDDLEWARE_ROUTES_MAX} routes, the default route included` });
  }
  return problems;
}

/** The routes as stored: the default route first, then the others in ascending priority (the order they are evaluated in), with their rules when they have some. */
export function normalizeMiddlewareRoutes(routes: readonly MiddlewareRoute[]): MiddlewareRoute[] {
  const others = routes
    .filter((route) => !isDefaultRoute(route))
    .map((route) => ({
      idRoute: route.idRoute,
      priority: route.priority as number,
      isDefault: false,
      ...(route.rules && route.rules.length > 0
        ? { rules: route.rules.map(({ field, operator, value }) => (value === undefined ? { field, operator } : { field, operator, value })) }
        : {}),
    }))
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
