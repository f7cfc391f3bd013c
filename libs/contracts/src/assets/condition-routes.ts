// The rule tables of a condition's routes: the domain's validateConditionRoutes applies them, and the
// API document's route schema is built from them here, so the two cannot drift apart.
import type { JsonSchema } from './asset-kind';
import { FALLBACK_ROUTE_KEY, FIELD_NAME_PATTERN, ROUTE_KEY_PATTERN, schemaRef } from './routing-keys';

export const CONDITION_STRING_OPERATORS = ['is', 'isNot', 'contains', 'notContains', 'startsWith', 'endsWith'] as const;
export const CONDITION_INTEGER_OPERATORS = ['is', 'isNot', 'gt', 'gte', 'lt', 'lte'] as const;
export const CONDITION_TAG_OPERATORS = ['has', 'hasNot'] as const;

export type ConditionStringOperator = (typeof CONDITION_STRING_OPERATORS)[number];
export type ConditionIntegerOperator = (typeof CONDITION_INTEGER_OPERATORS)[number];
export type ConditionTagOperator = (typeof CONDITION_TAG_OPERATORS)[number];
export type ConditionOperator = ConditionStringOperator | ConditionIntegerOperator | ConditionTagOperator;

/**
 * What a rule's attribute is: a string variable of the language (country ... trafficSourceID), an
 * integer one (hour ... utcOffsetHours), a named tracking field or data-buffer entry, or the visitor's tags.
 */
export type ConditionAttributeClass = 'string' | 'integer' | 'trackingField' | 'dataBuffer' | 'visitorTag';

/** The operators each attribute class accepts. */
export const CONDITION_OPERATORS: Readonly<Record<ConditionAttributeClass, readonly ConditionOperator[]>> = {
  string: CONDITION_STRING_OPERATORS,
  integer: CONDITION_INTEGER_OPERATORS,
  trackingField: CONDITION_STRING_OPERATORS,
  dataBuffer: CONDITION_STRING_OPERATORS,
  visitorTag: CONDITION_TAG_OPERATORS,
};

/** The attributes that are not variables of the language. */
export const CONDITION_SPECIAL_ATTRIBUTES = ['trackingField', 'dataBuffer', 'visitorTag'] as const;
/** The special attributes that name a field (`name`). */
export const CONDITION_NAMED_ATTRIBUTES: readonly ConditionAttributeClass[] = ['trackingField', 'dataBuffer'];

export const CONDITION_LIMITS = Object.freeze({
  minRoutes: 1,
  maxRoutes: 50,
  minRuleGroups: 1,
  maxRuleGroups: 20,
  minRules: 1,
  maxRules: 20,
  minValues: 1,
  maxValues: 500,
  maxValueLength: 256,
  minRouteNameLength: 1,
  maxRouteNameLength: 256,
  /** Most problems reported for one condition; the rest are counted in one last problem. */
  maxProblems: 20,
  /** Longest client-chosen text echoed in a problem; longer ones are cut. */
  maxEchoed: 64,
});

/** A value of a rule on an integer attribute: decimal digits with an optional leading minus. */
export const CONDITION_INTEGER_TEXT = /^-?\d{1,15}$/;

// ---- the API document's schemas of routes -----------------------------------------------------------

const L = CONDITION_LIMITS;
const union = (...lists: readonly (readonly string[])[]) => [...new Set(lists.flat())];

/** A rule on each special attribute, then on a variable of the language (string or integer: the variables are @funnel/visitor-context's). */
function ruleSchema(): JsonSchema {
  const values = { type: 'array', minItems: L.minValues, maxItems: L.maxValues, items: { type: 'string', maxLength: L.maxValueLength } };
  const special = CONDITION_SPECIAL_ATTRIBUTES.map((attribute) => ({
    if: { properties: { attribute: { const: attribute } }, required: ['attribute'] },
    then: CONDITION_NAMED_ATTRIBUTES.includes(attribute)
      ? { properties: { operator: { enum: [...CONDITION_OPERATORS[attribute]] }, name: { type: 'string' } }, required: ['name'] }
      : { properties: { operator: { enum: [...CONDITION_OPERATORS[attribute]] }, name: false } },
  }));
  return {
    type: 'object',
    required: ['attribute', 'operator', 'values'],
    properties: {
      attribute: {
        type: 'string',
        description: `a visitor variable of the logic-script language (country ... trafficSourceID, hour ... utcOffsetHours), or ${CONDITION_SPECIAL_ATTRIBUTES.join(', ')}`,
      },
      operator: {
        type: 'string',
        enum: union(...Object.values(CONDITION_OPERATORS)),
        description: Object.entries(CONDITION_OPERATORS)
          .map(([attributeClass, operators]) => `${attributeClass}: ${operators.join(', ')}`)
          .join('; '),
      },
      values: { ...values, description: 'any of them; integers in decimal for integer variables, visitor-tag ids for visitorTag' },
      name: {
        type: 'string',
        pattern: FIELD_NAME_PATTERN.source,
        description: `the tracking field or data-buffer entry (${CONDITION_NAMED_ATTRIBUTES.join(', ')} only)`,
      },
    },
    allOf: [
      ...special,
      {
        // A variable of the language: no name, a string or integer operator.
        if: { properties: { attribute: { enum: [...CONDITION_SPECIAL_ATTRIBUTES] } }, required: ['attribute'] },
        else: { properties: { operator: { enum: union(CONDITION_OPERATORS.string, CONDITION_OPERATORS.integer) }, name: false } },
      },
    ],
  };
}

/** Named schemas of a condition's routes (API document components). */
export const CONDITION_ROUTE_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ConditionRule: ruleSchema(),
  ConditionRoute: {
    description: 'Tried in order: the first route one of whose rule groups matches (all its rules hold) wins.',
    type: 'object',
    required: ['idRoute', 'routeName', 'ruleGroups'],
    properties: {
      idRoute: {
        type: 'string',
        pattern: ROUTE_KEY_PATTERN.source,
        not: { const: FALLBACK_ROUTE_KEY },
        description: `the route key the condition answers; unique in the condition, not \`${FALLBACK_ROUTE_KEY}\``,
      },
      routeName: { type: 'string', minLength: L.minRouteNameLength, maxLength: L.maxRouteNameLength },
      ruleGroups: {
        type: 'array',
        minItems: L.minRuleGroups,
        maxItems: L.maxRuleGroups,
        description: 'alternatives: any one must match',
        items: {
          type: 'object',
          required: ['rules'],
          properties: { rules: { type: 'array', minItems: L.minRules, maxItems: L.maxRules, items: schemaRef('ConditionRule'), description: 'all must hold' } },
        },
      },
    },
  },
};

/** The `routes` field of a condition, as the API document shows it. */
export const CONDITION_ROUTES_SCHEMA: JsonSchema = {
  type: 'array',
  minItems: L.minRoutes,
  maxItems: L.maxRoutes,
  items: schemaRef('ConditionRoute'),
  description: `tried in order; \`${FALLBACK_ROUTE_KEY}\` when none matches`,
};
