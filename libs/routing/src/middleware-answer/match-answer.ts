// Which route of a middleware config a server's answer takes: the config's routes in ascending
// priority, the first whose rules all hold; a route without rules holds when a 2xx answer names it
// (`{ "route": "<idRoute>" }`). Pure: the edge and the simulator's "call" both answer the engine with it.
import { MIDDLEWARE_BODY_FIELD, MIDDLEWARE_STATUS_FIELD, type MiddlewareRuleOperator } from '@funnel/contracts';
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { MiddlewareAnswer } from '../model';

export interface MiddlewareRouteRule {
  field: string;
  operator: MiddlewareRuleOperator;
  value?: string | number | boolean;
}

export interface MiddlewareRouteLike {
  idRoute: string;
  priority?: number;
  isDefault?: boolean;
  rules?: readonly MiddlewareRouteRule[];
}

/** A server's answer: its HTTP status and its body as text. */
export interface MiddlewareHttpAnswer {
  status: number;
  body: string;
}

/** Why the default route was taken. */
export type MiddlewareDefaultReason = 'noMatch' | 'timeout' | 'failure' | 'overloaded';

/** How a call went, as the caller saw it. */
export type MiddlewareCallOutcome =
  | { kind: 'answered'; answer: MiddlewareHttpAnswer; error?: string | null }
  | { kind: 'timeout'; error: string }
  | { kind: 'failure'; error: string }
  | { kind: 'overloaded'; error: string };

/** The engine's answer, with the route matched (null: none) and, when the default is taken, why. */
export interface MiddlewareDecision {
  answer: MiddlewareAnswer;
  matchedRouteId: string | null;
  defaultReason: MiddlewareDefaultReason | null;
}

const isDefault = (route: MiddlewareRouteLike) => route.isDefault === true || route.idRoute === FALLBACK_ROUTE_KEY;
const is2xx = (status: number) => status >= 200 && status < 300;
const NOT_FOUND = Symbol('absent');

/** The answer's body as JSON, or NOT_FOUND when it is not JSON. */
function parseBody(body: string): unknown {
  if (body.trim() === '') return NOT_FOUND;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return NOT_FOUND;
  }
}

/** The value a rule's field names in the answer (NOT_FOUND when the answer has none). */
function fieldValue(field: string, status: number, json: unknown): unknown {
  if (field === MIDDLEWARE_STATUS_FIELD) return status;
  if (field !== MIDDLEWARE_BODY_FIELD && !field.startsWith(`${MIDDLEWARE_BODY_FIELD}.`)) return NOT_FOUND;
  let value = json;
  if (field === MIDDLEWARE_BODY_FIELD) return value;
  for (const key of field.slice(MIDDLEWARE_BODY_FIELD.length + 1).split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(key)) value = Number(key) < value.length ? value[Number(key)] : NOT_FOUND;
    else if (typeof value === 'object' && value !== null && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, key))
      value = (value as Record<string, unknown>)[key];
    else return NOT_FOUND;
  }
  return value;
}

/** A number, or text that is exactly a number. */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

/** `is`: a number equals the same number or text reading as it; text equals the same text or a number/boolean written so; a boolean equals itself. */
function equals(found: unknown, value: string | number | boolean | undefined): boolean {
  if (typeof value === 'number') return numberOf(found) === value;
  if (typeof value === 'string') return found === value || ((typeof found === 'number' || typeof found === 'boolean') && String(found) === value);
  return found === value;
}

/** Whether one rule holds for the answer. */
export function ruleHolds(rule: MiddlewareRouteRule, answer: MiddlewareHttpAnswer, json: unknown = parseBody(answer.body)): boolean {
  const found = fieldValue(rule.field, answer.status, json);
  const present = found !== NOT_FOUND && found !== null && found !== undefined;
  switch (rule.operator) {
    case 'exists':
      return present;
    case 'is':
      return present && equals(found, rule.value);
    case 'isNot':
      return !(present && equals(found, rule.value));
    case 'contains':
      if (typeof found === 'string') return found.includes(String(rule.value));
      return Array.isArray(found) && found.some((item) => equals(item, rule.value));
    case 'gt':
    case 'lt': {
      const number = numberOf(found);
      const bound = numberOf(rule.value);
      if (number === undefined || bound === undefined) return false;
      return rule.operator === 'gt' ? number > bound : number < bound;
    }
    default: {
      const never: never = rule.operator;
      return never;
    }
  }
}

/**
 * The route an answer takes: the routes other than the default, in ascending priority, the first
 * that holds. A route with rules holds when every rule does; one without holds when the answer is a
 * 2xx JSON object `{ "route": "<its idRoute>" }`. Null: none holds (the default route is taken).
 */
export function matchMiddlewareRoute(routes: readonly MiddlewareRouteLike[], answer: MiddlewareHttpAnswer): string | null {
  const json = parseBody(answer.body);
  const named =
    is2xx(answer.status) && typeof json === 'object' && json !== null && typeof (json as { route?: unknown }).route === 'string'
      ? (json as { route: string }).route
      : undefined;
  const ordered = routes.filter((route) => !isDefault(route)).sort((a, b) => (a.priority ?? 0) - (b.priority ?? 0));
  for (const route of ordered) {
    const rules = route.rules ?? [];
    const holds =
      rules.length === 0
        ? named === route.idRoute
        : (is2xx(answer.status) || rules.some((rule) => rule.field === MIDDLEWARE_STATUS_FIELD)) && rules.every((rule) => ruleHolds(rule, answer, json));
    if (holds) return route.idRoute;
  }
  return null;
}

/**
 * The engine's answer for a call's outcome: the matched route, else a failure naming why the default
 * is taken (`noMatch` for a 2xx answer no route takes; `failure` for a non-2xx answer no route takes
 * or no answer at all; `timeout`; `overloaded` when the caller did not call).
 */
export function decideMiddlewareAnswer(routes: readonly MiddlewareRouteLike[], outcome: MiddlewareCallOutcome): MiddlewareDecision {
  if (outcome.kind !== 'answered') return { answer: { failure: outcome.error }, matchedRouteId: null, defaultReason: outcome.kind };
  const matched = matchMiddlewareRoute(routes, outcome.answer);
  if (matched !== null) return { answer: { routeId: matched }, matchedRouteId: matched, defaultReason: null };
  const ok = is2xx(outcome.answer.status);
  return {
    answer: { failure: ok ? 'no route of the config matches the answer' : (outcome.error ?? `HTTP ${outcome.answer.status}`) },
    matchedRouteId: null,
    defaultReason: ok ? 'noMatch' : 'failure',
  };
}

/** The routes of a config record (its `routes`, as stored). */
export function middlewareRoutesOf(config: Readonly<Record<string, unknown>> | undefined): MiddlewareRouteLike[] {
  const routes = config?.['routes'];
  return Array.isArray(routes)
    ? (routes.filter((route) => typeof route === 'object' && route !== null && typeof route.idRoute === 'string') as MiddlewareRouteLike[])
    : [];
}
