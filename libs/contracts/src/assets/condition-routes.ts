// The rule tables of a condition's routes: the domain's validateConditionRoutes applies them, and the
// API document's route schema is built from them here, so the two cannot drift apart.
import type { JsonSchema } from './asset-kind';
import { FALLBACK_ROUTE_KEY, FIELD_NAME_PATTERN, ROUTE_KEY_PATTERN, VISITOR_INTEGER_VARIABLES, VISITOR_STRING_VARIABLES, schemaRef } from './routing-keys';

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

/** A rule: per attribute class, the operators it takes, whether it names a field, and (integer variables) integer values. */
function ruleSchema(): JsonSchema {
  const classes: [ConditionAttributeClass, readonly string[]][] = [
    ['string', VISITOR_STRING_VARIABLES],
    ['integer', VISITOR_INTEGER_VARIABLES],
    ...CONDITION_SPECIAL_ATTRIBUTES.map((attribute): [ConditionAttributeClass, readonly string[]] => [attribute, [attribute]]),
  ];
  const byClass = classes.map(([attributeClass, attributes]) => ({
    if: { properties: { attribute: { enum: [...attributes] } }, required: ['attribute'] },
    then: {
      properties: {
        operator: { enum: [...CONDITION_OPERATORS[attributeClass]] },
        ...(attributeClass === 'integer' ? { values: { type: 'array', items: { type: 'string', pattern: CONDITION_INTEGER_TEXT.source } } } : {}),
        name: CONDITION_NAMED_ATTRIBUTES.includes(attributeClass) ? { type: 'string' } : false,
      },
      ...(CONDITION_NAMED_ATTRIBUTES.includes(attributeClass) ? { required: ['name'] } : {}),
    },
  }));
  return {
    type: 'object',
    required: ['attribute', 'operator', 'values'],
    properties: {
      attribute: {
        type: 'string',
        enum: classes.flatMap(([, attributes]) => attributes),
        description: 'a visitor variable of the logic-script language (its strings, then its integers), or a special attribute',
      },
      operator: {
        type: 'string',
        enum: union(...Object.values(CONDITION_OPERATORS)),
        description: Object.entries(CONDITION_OPERATORS)
          .map(([attributeClass, operators]) => `${attributeClass}: ${operators.join(', ')}`)
          .join('; '),
      },
      values: {
        type: 'array',
        minItems: L.minValues,
        maxItems: L.maxValues,
        items: { type: 'string', maxLength: L.maxValueLength },
        description: 'any of them; integers in decimal for integer variables, visitor-tag ids for visitorTag',
      },
      name: {
        type: 'string',
        pattern: FIELD_NAME_PATTERN.source,
        description: `the tracking field or data-buffer entry (${CONDITION_NAMED_ATTRIBUTES.join(', ')} only)`,
      },
    },
    allOf: byClass,
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
