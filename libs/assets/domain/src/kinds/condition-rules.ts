// The rules of a condition: its routes, their rule groups and rules, how they are validated and how a
// visitor is routed by them. Pure: no clock, no I/O. Values are read through the visitor-context model
// the logic scripts read, so a condition and a script see the same country, hour or tag set.
//
// Semantics (the same for the dry run and the funnel runtime):
// - The first route (in order) whose rule groups match wins, else `default`. A route's rule groups are
//   alternatives (OR); the rules of a group must all hold (AND).
// - Every operator takes a list of values and means "any of them": `is` = equals any value, `contains`
//   = contains any, `startsWith`/`endsWith` = starts/ends with any, `gt` = greater than any (so greater
//   than the smallest), `gte`, `lt`, `lte` likewise, `has` = holds any of the tag ids. The negative
//   operators are exact negations: `isNot` = equals none, `notContains` = contains none, `hasNot` =
//   holds none.
// - Strings compare as the logic-script language compares them (Go's ==, strings.Contains,
//   strings.HasPrefix, strings.HasSuffix): exactly and case-sensitively; every string contains "".
// - A missing value reads as the language reads it: a string attribute, tracking field or data-buffer
//   entry the visitor lacks is "", so `is ""` matches it; a visitor without tags holds no tag; an
//   unknown utcOffsetHours is 0. The time variables (hour, minute, weekday, dayOfMonth, month, year) are
//   those of the instant in UTC, whatever the visitor's utcOffsetHours, as in scripts.
import {
  FALLBACK_ROUTE_KEY,
  FIELD_NAME_PATTERN,
  INTEGER_VARIABLE_NAMES,
  isFieldName,
  isRouteKey,
  readVariable,
  ROUTE_KEY_PATTERN,
  STRING_VARIABLE_NAMES,
  VisitorContext,
} from '@funnel/visitor-context';
import {
  CONDITION_INTEGER_TEXT,
  CONDITION_LIMITS,
  CONDITION_OPERATORS,
  CONDITION_SPECIAL_ATTRIBUTES,
  type ConditionAttributeClass,
  type ConditionOperator,
} from '@funnel/contracts';

// The rule tables live in @funnel/contracts, where the API document's route schema is built from them.
export {
  CONDITION_INTEGER_OPERATORS,
  CONDITION_LIMITS,
  CONDITION_OPERATORS,
  CONDITION_SPECIAL_ATTRIBUTES,
  CONDITION_STRING_OPERATORS,
  CONDITION_TAG_OPERATORS,
  type ConditionAttributeClass,
  type ConditionIntegerOperator,
  type ConditionOperator,
  type ConditionStringOperator,
  type ConditionTagOperator,
} from '@funnel/contracts';

export interface ConditionRule {
  attribute: string;
  operator: ConditionOperator;
  /** Strings; for integer attributes each is an integer in decimal, for visitorTag a visitor-tag id. */
  values: string[];
  /** The tracking field or data-buffer entry (FIELD_NAME_PATTERN); only for those two attributes. */
  name?: string;
}

export interface ConditionRuleGroup {
  /** All must hold. */
  rules: ConditionRule[];
}

export interface ConditionRoute {
  /** The route key the condition answers when this route wins. */
  idRoute: string;
  routeName: string;
  /** Any one must match. */
  ruleGroups: ConditionRuleGroup[];
}

export const CONDITION_PROBLEM_CODES = Object.freeze({
  /** A field that must be there is missing. */
  REQUIRED: 'REQUIRED',
  /** A field of the wrong JSON type (e.g. a number where a string belongs). */
  INVALID_TYPE: 'INVALID_TYPE',
  /** A list with fewer entries than it needs. */
  TOO_FEW: 'TOO_FEW',
  /** A list with more entries than it may hold. */
  TOO_MANY: 'TOO_MANY',
  /** A string shorter or longer than allowed. */
  INVALID_LENGTH: 'INVALID_LENGTH',
  /** An idRoute that does not match ROUTE_KEY_PATTERN. */
  INVALID_ROUTE_KEY: 'INVALID_ROUTE_KEY',
  /** An idRoute that is `default`, the key every condition answers when no route matches. */
  RESERVED_ROUTE_KEY: 'RESERVED_ROUTE_KEY',
  /** An idRoute an earlier route already has. */
  DUPLICATE_ROUTE_KEY: 'DUPLICATE_ROUTE_KEY',
  UNKNOWN_ATTRIBUTE: 'UNKNOWN_ATTRIBUTE',
  /** An operator that is unknown or not one of the attribute's class. */
  INVALID_OPERATOR: 'INVALID_OPERATOR',
  /** A value of an integer attribute that is not an integer. */
  NOT_AN_INTEGER: 'NOT_AN_INTEGER',
  /** A name that does not match FIELD_NAME_PATTERN. */
  INVALID_NAME: 'INVALID_NAME',
  /** A name on a rule whose attribute takes none. */
  NAME_NOT_ALLOWED: 'NAME_NOT_ALLOWED',
  /** The last problem when there are more than CONDITION_LIMITS.maxProblems: how many were left out. */
  MORE_PROBLEMS: 'MORE_PROBLEMS',
});

export type ConditionProblemCode = (typeof CONDITION_PROBLEM_CODES)[keyof typeof CONDITION_PROBLEM_CODES];

export interface ConditionProblem {
  /** Path of the field, e.g. `routes[0].ruleGroups[1].rules[2].operator`. */
  field: string;
  code: ConditionProblemCode;
  message: string;
}

export interface ConditionMatchedRoute {
  idRoute: string;
  routeName: string;
}

export interface ConditionEvaluation {
  /** The winning route's idRoute, or `default`. */
  routeKey: string;
  /** The winning route; null when the condition answers `default`. */
  matchedRoute: ConditionMatchedRoute | null;
  /** Human-readable explanation. */
  reason: string;
}

/** A visitor-tag id a condition names, with the path of the value that names it. */
export interface ConditionTagReference {
  field: string;
  id: string;
}

const STRING_ATTRIBUTES: ReadonlySet<string> = new Set(STRING_VARIABLE_NAMES);
const INTEGER_ATTRIBUTES: ReadonlySet<string> = new Set(INTEGER_VARIABLE_NAMES);
const ALL_ATTRIBUTES: readonly string[] = [...STRING_VARIABLE_NAMES, ...INTEGER_VARIABLE_NAMES, ...CONDITION_SPECIAL_ATTRIBUTES];

/** The class of an attribute name; undefined when it names no attribute. */
export function attributeClassOf(attribute: unknown): ConditionAttributeClass | undefined {
  if (typeof attribute !== 'string') return undefined;
  if (STRING_ATTRIBUTES.has(attribute)) return 'string';
  if (INTEGER_ATTRIBUTES.has(attribute)) return 'integer';
  if (attribute === 'trackingField' || attribute === 'dataBuffer' || attribute === 'visitorTag') return attribute;
  return undefined;
}

/** The keys a condition can answer: its routes' ids, in order, then `default`. */
export function conditionRouteKeys(routes: readonly ConditionRoute[]): string[] {
  return [...routes.map((route) => route.idRoute), FALLBACK_ROUTE_KEY];
}

// ---- validation --------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
}

function shown(text: string): string {
  return JSON.stringify(text.length > CONDITION_LIMITS.maxEchoed ? `${text.slice(0, CONDITION_LIMITS.maxEchoed)}…` : text);
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

class Problems {
  readonly all: ConditionProblem[] = [];

  add(field: string, code: ConditionProblemCode, message: string): void {
    this.all.push({ field, code, message: `${field} ${message}` });
  }

  /** A list of min..max entries; false (with the problem) when it is not a list. */
  array(field: string, value: unknown, min: number, max: number, what: string): value is unknown[] {
    if (value === undefined) {
      this.add(field, CONDITION_PROBLEM_CODES.REQUIRED, `is required (a list of ${min} to ${max} ${what})`);
      return false;
    }
    if (!Array.isArray(value)) {
      this.add(field, CONDITION_PROBLEM_CODES.INVALID_TYPE, `must be a list of ${what}, got ${describeType(value)}`);
      return false;
    }
    if (value.length < min) this.add(field, CONDITION_PROBLEM_CODES.TOO_FEW, `must hold at least ${plural(min, what.replace(/s$/, ''))}`);
    if (value.length > max) this.add(field, CONDITION_PROBLEM_CODES.TOO_MANY, `must hold at most ${max} ${what}, got ${value.length}`);
    return true;
  }

  /** An object; false (with the problem) when it is not one. */
  object(field: string, value: unknown, what: string): value is Record<string, unknown> {
    if (isPlainObject(value)) return true;
    this.add(field, CONDITION_PROBLEM_CODES.INVALID_TYPE, `must be ${what}, got ${describeType(value)}`);
    return false;
  }

  /** A string; false (with the problem) when it is missing or not one. */
  string(field: string, value: unknown): value is string {
    if (typeof value === 'string') return true;
    if (value === undefined) this.add(field, CONDITION_PROBLEM_CODES.REQUIRED, 'is required');
    else this.add(field, CONDITION_PROBLEM_CODES.INVALID_TYPE, `must be a string, got ${describeType(value)}`);
    return false;
  }

  /** The first maxProblems problems, then one counting the rest. */
  bounded(): ConditionProblem[] {
    const { maxProblems } = CONDITION_LIMITS;
    if (this.all.length <= maxProblems) return this.all;
    const more = this.all.length - maxProblems;
    return [
      ...this.all.slice(0, maxProblems),
      { field: 'routes', code: CONDITION_PROBLEM_CODES.MORE_PROBLEMS, message: `and ${plural(more, 'more problem')}` },
    ];
  }
}

/**
 * Every problem with a condition's routes (as the JSON a client sent), each naming its field path. An
 * empty list means the routes are valid. Visitor-tag ids are not looked up here: see visitorTagIdsOf.
 */
export function validateConditionRoutes(routes: unknown): ConditionProblem[] {
  const problems = new Problems();
  const L = CONDITION_LIMITS;
  if (!problems.array('routes', routes, L.minRoutes, L.maxRoutes, 'routes')) return problems.bounded();
  const seen = new Set<string>();
  routes.forEach((route, r) => {
    const at = `routes[${r}]`;
    if (!problems.object(at, route, 'a route { idRoute, routeName, ruleGroups }')) return;
    const idRoute = route['idRoute'];
    if (problems.string(`${at}.idRoute`, idRoute)) {
      if (!isRouteKey(idRoute)) {
        problems.add(`${at}.idRoute`, CONDITION_PROBLEM_CODES.INVALID_ROUTE_KEY, `must match ${ROUTE_KEY_PATTERN.source}, got ${shown(idRoute)}`);
      } else if (idRoute === FALLBACK_ROUTE_KEY) {
        problems.add(
          `${at}.idRoute`,
          CONDITION_PROBLEM_CODES.RESERVED_ROUTE_KEY,
          `cannot be "${FALLBACK_ROUTE_KEY}": every condition answers it when no route matches`,
        );
      } else if (seen.has(idRoute)) {
        problems.add(`${at}.idRoute`, CONDITION_PROBLEM_CODES.DUPLICATE_ROUTE_KEY, `"${idRoute}" is the idRoute of an earlier route`);
      }
      seen.add(idRoute);
    }
    const routeName = route['routeName'];
    if (problems.string(`${at}.routeName`, routeName) && (routeName.length < L.minRouteNameLength || routeName.length > L.maxRouteNameLength)) {
      problems.add(`${at}.routeName`, CONDITION_PROBLEM_CODES.INVALID_LENGTH, `must be ${L.minRouteNameLength} to ${L.maxRouteNameLength} characters long`);
    }
    const groups = route['ruleGroups'];
    if (!problems.array(`${at}.ruleGroups`, groups, L.minRuleGroups, L.maxRuleGroups, 'rule groups')) return;
    groups.forEach((group, g) => {
      const groupAt = `${at}.ruleGroups[${g}]`;
      if (!problems.object(groupAt, group, 'a rule group { rules }')) return;
      const rules = group['rules'];
      if (!problems.array(`${groupAt}.rules`, rules, L.minRules, L.maxRules, 'rules')) return;
      rules.forEach((rule, i) => validateRule(problems, `${groupAt}.rules[${i}]`, rule));
    });
  });
  return problems.bounded();
}

function validateRule(problems: Problems, at: string, rule: unknown): void {
  if (!problems.object(at, rule, 'a rule { attribute, operator, values, name? }')) return;
  const attribute = rule['attribute'];
  let attributeClass: ConditionAttributeClass | undefined;
  if (problems.string(`${at}.attribute`, attribute)) {
    attributeClass = attributeClassOf(attribute);
    if (attributeClass === undefined) {
      const similar = ALL_ATTRIBUTES.find((name) => name.toLowerCase() === attribute.toLowerCase());
      problems.add(
        `${at}.attribute`,
        CONDITION_PROBLEM_CODES.UNKNOWN_ATTRIBUTE,
        `${shown(attribute)} is not a condition attribute${similar ? ` (did you mean ${similar}?)` : ''}; the attributes are the visitor variables of the logic-script language, trackingField, dataBuffer and visitorTag`,
      );
    }
  }

  const operator = rule['operator'];
  if (problems.string(`${at}.operator`, operator) && attributeClass !== undefined) {
    const allowed = CONDITION_OPERATORS[attributeClass];
    if (!(allowed as readonly string[]).includes(operator)) {
      const owner = attributeClass === 'string' || attributeClass === 'integer' ? `${attributeClass} attribute ${attribute}` : String(attribute);
      problems.add(
        `${at}.operator`,
        CONDITION_PROBLEM_CODES.INVALID_OPERATOR,
        `${shown(operator)} is not an operator of ${owner}; use one of ${allowed.join(', ')}`,
      );
    }
  }

  const name = rule['name'];
  if (attributeClass === 'trackingField' || attributeClass === 'dataBuffer') {
    if (problems.string(`${at}.name`, name) && !isFieldName(name)) {
      problems.add(
        `${at}.name`,
        CONDITION_PROBLEM_CODES.INVALID_NAME,
        `must match ${FIELD_NAME_PATTERN.source} (1 to 64 letters, digits, underscores, spaces or hyphens)`,
      );
    }
  } else if (name !== undefined && attributeClass !== undefined) {
    problems.add(
      `${at}.name`,
      CONDITION_PROBLEM_CODES.NAME_NOT_ALLOWED,
      `is only for the attributes trackingField and dataBuffer; leave it out for ${attribute}`,
    );
  }

  const values = rule['values'];
  const L = CONDITION_LIMITS;
  if (!problems.array(`${at}.values`, values, L.minValues, L.maxValues, 'values')) return;
  values.forEach((value, v) => {
    const valueAt = `${at}.values[${v}]`;
    if (!problems.string(valueAt, value)) return;
    if (value.length > L.maxValueLength) problems.add(valueAt, CONDITION_PROBLEM_CODES.INVALID_LENGTH, `must be at most ${L.maxValueLength} characters long`);
    else if (attributeClass === 'integer' && !isIntegerText(value)) {
      problems.add(
        valueAt,
        CONDITION_PROBLEM_CODES.NOT_AN_INTEGER,
        `must be an integer (decimal digits with an optional leading -) for ${attribute}, got ${shown(value)}`,
      );
    }
  });
}

function isIntegerText(value: string): boolean {
  return CONDITION_INTEGER_TEXT.test(value);
}

/**
 * The routes with exactly the fields a condition keeps (idRoute, routeName, ruleGroups[].rules[] of
 * attribute, operator, values and, for trackingField and dataBuffer, name); other fields are dropped.
 * For routes validateConditionRoutes accepted.
 */
export function normalizeConditionRoutes(routes: readonly ConditionRoute[]): ConditionRoute[] {
  return routes.map((route) => ({
    idRoute: route.idRoute,
    routeName: route.routeName,
    ruleGroups: route.ruleGroups.map((group) => ({
      rules: group.rules.map((rule) => {
        const kept: ConditionRule = { attribute: rule.attribute, operator: rule.operator, values: [...rule.values] };
        if (rule.attribute === 'trackingField' || rule.attribute === 'dataBuffer') kept.name = rule.name;
        return kept;
      }),
    })),
  }));
}

/** Every visitor-tag id the rules name, each with the path of its value, to check as references. */
export function visitorTagIdsOf(routes: readonly ConditionRoute[]): ConditionTagReference[] {
  const references: ConditionTagReference[] = [];
  routes.forEach((route, r) =>
    route.ruleGroups.forEach((group, g) =>
      group.rules.forEach((rule, i) => {
        if (rule.attribute !== 'visitorTag') return;
        rule.values.forEach((id, v) => references.push({ field: `routes[${r}].ruleGroups[${g}].rules[${i}].values[${v}]`, id }));
      }),
    ),
  );
  return references;
}

// ---- evaluation --------------------------------------------------------------------------------

/**
 * Routes one visitor: the first route whose rule groups match (any group whose rules all hold), else
 * `default`. Meant for routes validateConditionRoutes accepted (a rule with an unknown attribute or an
 * operator of another class never holds). Never throws: when the context cannot answer (e.g. no valid
 * time for a time variable) or the routes are malformed, the condition answers `default` with the reason.
 */
export function evaluateCondition(routes: readonly ConditionRoute[], context: VisitorContext): ConditionEvaluation {
  try {
    for (const route of routes) {
      const group = route.ruleGroups.findIndex((candidate) => candidate.rules.every((rule) => ruleHolds(rule, context)));
      if (group < 0) continue;
      const groups = route.ruleGroups.length;
      return {
        routeKey: route.idRoute,
        matchedRoute: { idRoute: route.idRoute, routeName: route.routeName },
        reason: `route "${route.idRoute}" matched: every rule of its rule group ${group + 1}${groups > 1 ? ` of ${groups}` : ''} holds`,
      };
    }
    return {
      routeKey: FALLBACK_ROUTE_KEY,
      matchedRoute: null,
      reason: `no route matched (${plural(routes.length, 'route')} tried), so the condition answers "${FALLBACK_ROUTE_KEY}"`,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return {
      routeKey: FALLBACK_ROUTE_KEY,
      matchedRoute: null,
      reason: `the condition could not be evaluated (${message}), so it answers "${FALLBACK_ROUTE_KEY}"`,
    };
  }
}

/** Whether one rule holds for the visitor. */
function ruleHolds(rule: ConditionRule, context: VisitorContext): boolean {
  switch (attributeClassOf(rule.attribute)) {
    case 'string':
      return stringRuleHolds(rule.operator, readVariable(context, rule.attribute) as string, rule.values);
    case 'trackingField':
      return stringRuleHolds(rule.operator, context.trackingField(rule.name ?? ''), rule.values);
    case 'dataBuffer':
      return stringRuleHolds(rule.operator, context.dataBufferValue(rule.name ?? ''), rule.values);
    case 'integer':
      return integerRuleHolds(rule.operator, readVariable(context, rule.attribute) as number, rule.values);
    case 'visitorTag':
      return tagRuleHolds(rule.operator, context, rule.values);
    default:
      return false;
  }
}

function stringRuleHolds(operator: ConditionOperator, value: string, values: readonly string[]): boolean {
  switch (operator) {
    case 'is':
      return values.includes(value);
    case 'isNot':
      return !values.includes(value);
    case 'contains':
      return values.some((part) => value.includes(part));
    case 'notContains':
      return !values.some((part) => value.includes(part));
    case 'startsWith':
      return values.some((prefix) => value.startsWith(prefix));
    case 'endsWith':
      return values.some((suffix) => value.endsWith(suffix));
    default:
      return false;
  }
}

function integerRuleHolds(operator: ConditionOperator, value: number, values: readonly string[]): boolean {
  const numbers = values.filter(isIntegerText).map(Number);
  switch (operator) {
    case 'is':
      return numbers.includes(value);
    case 'isNot':
      return !numbers.includes(value);
    case 'gt':
      return numbers.some((n) => value > n);
    case 'gte':
      return numbers.some((n) => value >= n);
    case 'lt':
      return numbers.some((n) => value < n);
    case 'lte':
      return numbers.some((n) => value <= n);
    default:
      return false;
  }
}

function tagRuleHolds(operator: ConditionOperator, context: VisitorContext, ids: readonly string[]): boolean {
  switch (operator) {
    case 'has':
      return ids.some((id) => context.hasVisitorTag(id));
    case 'hasNot':
      return !ids.some((id) => context.hasVisitorTag(id));
    default:
      return false;
  }
}
