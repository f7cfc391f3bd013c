import { DryRunInput, validateDryRunInput, VisitorContext, visitorContextOf } from '@funnel/visitor-context';
import fc from 'fast-check';
import {
  CONDITION_OPERATORS,
  ConditionAttributeClass,
  ConditionRoute,
  ConditionRule,
  conditionRouteKeys,
  evaluateCondition,
  normalizeConditionRoutes,
  validateConditionRoutes,
  visitorTagIdsOf,
} from './condition-rules';

const NOW = new Date('2024-02-29T23:59:30Z'); // a Thursday (weekday 4)

/** The one-route condition "yes" whose only rule is `rule`. */
function oneRule(rule: ConditionRule): ConditionRoute[] {
  return [{ idRoute: 'yes', routeName: 'Yes', ruleGroups: [{ rules: [rule] }] }];
}

/** The context of a dry-run input, which must be valid (the evaluate endpoint validates it first). */
function contextOf(input: Partial<DryRunInput>): VisitorContext {
  const full: DryRunInput = { visitor: {}, ...input };
  expect(validateDryRunInput(full)).toEqual([]);
  return visitorContextOf(full, NOW);
}

function holds(rule: ConditionRule, input: Partial<DryRunInput>): boolean {
  return evaluateCondition(oneRule(rule), contextOf(input)).routeKey === 'yes';
}

const UA = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)';
const visitor = {
  country: 'US',
  deviceType: 'desktop',
  userAgent: UA,
  currentURL: 'https://track.example.com/click?sub1=abc',
  trackingDomain: 'track.example.com',
  trafficSourceID: 'organic',
};
const fields = { trackingFields: { campaign: 'spring', 'sub 1': 'a' }, dataBuffer: { plan: 'pro' } };

describe('evaluateCondition: one rule per attribute class and operator', () => {
  it.each<[string, ConditionRule, Partial<DryRunInput>, boolean]>([
    // string variables
    ['country is the value', { attribute: 'country', operator: 'is', values: ['US'] }, { visitor }, true],
    ['country is any of the values', { attribute: 'country', operator: 'is', values: ['CA', 'US'] }, { visitor }, true],
    ['country is none of the values', { attribute: 'country', operator: 'is', values: ['CA', 'MX'] }, { visitor }, false],
    ['is compares case-sensitively', { attribute: 'country', operator: 'is', values: ['us'] }, { visitor }, false],
    ['a missing attribute is ""', { attribute: 'country', operator: 'is', values: [''] }, {}, true],
    ['a missing attribute is no other value', { attribute: 'country', operator: 'is', values: ['US'] }, {}, false],
    ['isNot: the value is none of them', { attribute: 'country', operator: 'isNot', values: ['DE'] }, { visitor }, true],
    ['isNot: the value is one of them', { attribute: 'country', operator: 'isNot', values: ['DE', 'US'] }, { visitor }, false],
    ['isNot holds for a missing attribute', { attribute: 'country', operator: 'isNot', values: ['US'] }, {}, true],
    ['deviceType isNot mobile or tablet', { attribute: 'deviceType', operator: 'isNot', values: ['mobile', 'tablet'] }, { visitor }, true],
    ['contains a substring', { attribute: 'userAgent', operator: 'contains', values: ['iPhone'] }, { visitor }, true],
    ['contains any of the substrings', { attribute: 'userAgent', operator: 'contains', values: ['Android', 'iPhone'] }, { visitor }, true],
    ['contains compares case-sensitively', { attribute: 'userAgent', operator: 'contains', values: ['iphone'] }, { visitor }, false],
    ['every string contains ""', { attribute: 'userAgent', operator: 'contains', values: [''] }, {}, true],
    ['notContains: none of the substrings', { attribute: 'userAgent', operator: 'notContains', values: ['Android', 'Windows'] }, { visitor }, true],
    ['notContains: one of the substrings', { attribute: 'userAgent', operator: 'notContains', values: ['Android', 'iPhone'] }, { visitor }, false],
    ['startsWith a prefix', { attribute: 'currentURL', operator: 'startsWith', values: ['https://track'] }, { visitor }, true],
    ['startsWith any of the prefixes', { attribute: 'currentURL', operator: 'startsWith', values: ['http://', 'https://'] }, { visitor }, true],
    ['startsWith none of the prefixes', { attribute: 'currentURL', operator: 'startsWith', values: ['http://', 'ftp://'] }, { visitor }, false],
    ['endsWith a suffix', { attribute: 'trackingDomain', operator: 'endsWith', values: ['.example.com'] }, { visitor }, true],
    ['endsWith any of the suffixes', { attribute: 'trackingDomain', operator: 'endsWith', values: ['.example.org', '.example.com'] }, { visitor }, true],
    ['endsWith compares case-sensitively', { attribute: 'trackingDomain', operator: 'endsWith', values: ['.EXAMPLE.COM'] }, { visitor }, false],
    ['trafficSourceID is organic', { attribute: 'trafficSourceID', operator: 'is', values: ['organic'] }, { visitor }, true],
    [
      'referrer falls back to initialReferrer, as in scripts',
      { attribute: 'referrer', operator: 'is', values: ['https://a.example/'] },
      { visitor: { initialReferrer: 'https://a.example/' } },
      true,
    ],
    // integer variables derived from the time (2024-02-29T23:59:30Z, a Thursday)
    ['hour is the value', { attribute: 'hour', operator: 'is', values: ['23'] }, {}, true],
    ['hour is any of the values', { attribute: 'hour', operator: 'is', values: ['22', '23'] }, {}, true],
    ['hour isNot the value', { attribute: 'hour', operator: 'isNot', values: ['23'] }, {}, false],
    ['hour isNot any of the values', { attribute: 'hour', operator: 'isNot', values: ['0', '1'] }, {}, true],
    ['hour gt a smaller value', { attribute: 'hour', operator: 'gt', values: ['22'] }, {}, true],
    ['hour gt the same value', { attribute: 'hour', operator: 'gt', values: ['23'] }, {}, false],
    ['gt holds when greater than any value', { attribute: 'hour', operator: 'gt', values: ['23', '5'] }, {}, true],
    ['hour gte the same value', { attribute: 'hour', operator: 'gte', values: ['23'] }, {}, true],
    ['hour gte a greater value', { attribute: 'hour', operator: 'gte', values: ['24'] }, {}, false],
    ['hour lt the same value', { attribute: 'hour', operator: 'lt', values: ['23'] }, {}, false],
    ['lt holds when less than any value', { attribute: 'hour', operator: 'lt', values: ['1', '24'] }, {}, true],
    ['lt fails when less than none', { attribute: 'hour', operator: 'lt', values: ['1', '2'] }, {}, false],
    ['hour lte the same value', { attribute: 'hour', operator: 'lte', values: ['23'] }, {}, true],
    ['minute is 59', { attribute: 'minute', operator: 'is', values: ['59'] }, {}, true],
    ['weekday is Thursday (4)', { attribute: 'weekday', operator: 'is', values: ['4'] }, {}, true],
    ['weekday isNot the weekend', { attribute: 'weekday', operator: 'isNot', values: ['0', '6'] }, {}, true],
    ['dayOfMonth is 29', { attribute: 'dayOfMonth', operator: 'is', values: ['29'] }, {}, true],
    ['month is February (2)', { attribute: 'month', operator: 'is', values: ['2'] }, {}, true],
    ['year gte 2024', { attribute: 'year', operator: 'gte', values: ['2024'] }, {}, true],
    ['year lt 2024', { attribute: 'year', operator: 'lt', values: ['2024'] }, {}, false],
    ['a value with a leading zero is the number', { attribute: 'minute', operator: 'is', values: ['059'] }, {}, true],
    // time variables with the visitor's utcOffsetHours and times written in other zones
    ['hour is in UTC whatever the visitor offset', { attribute: 'hour', operator: 'is', values: ['23'] }, { visitor: { utcOffsetHours: 5 } }, true],
    ['hour is not shifted by the visitor offset', { attribute: 'hour', operator: 'is', values: ['4'] }, { visitor: { utcOffsetHours: 5 } }, false],
    ['a time with a zone is read in UTC', { attribute: 'hour', operator: 'is', values: ['18'] }, { time: '2025-03-01T13:30:00-05:00' }, true],
    ['a time with a zone is not read locally', { attribute: 'hour', operator: 'is', values: ['13'] }, { time: '2025-03-01T13:30:00-05:00' }, false],
    ['the UTC day after a local evening', { attribute: 'dayOfMonth', operator: 'is', values: ['2'] }, { time: '2025-03-01T22:00:00-05:00' }, true],
    ['the UTC weekday after a local evening', { attribute: 'weekday', operator: 'is', values: ['0'] }, { time: '2025-03-01T22:00:00-05:00' }, true],
    ['utcOffsetHours is the visitor offset', { attribute: 'utcOffsetHours', operator: 'is', values: ['-5'] }, { visitor: { utcOffsetHours: -5 } }, true],
    ['utcOffsetHours lt 0 west of UTC', { attribute: 'utcOffsetHours', operator: 'lt', values: ['0'] }, { visitor: { utcOffsetHours: -5 } }, true],
    ['an unknown utcOffsetHours is 0', { attribute: 'utcOffsetHours', operator: 'is', values: ['0'] }, {}, true],
    ['an unknown utcOffsetHours is not east of UTC', { attribute: 'utcOffsetHours', operator: 'gte', values: ['1'] }, {}, false],
    // tracking fields
    ['trackingField is the value', { attribute: 'trackingField', name: 'campaign', operator: 'is', values: ['spring'] }, fields, true],
    ['trackingField is case-sensitive', { attribute: 'trackingField', name: 'campaign', operator: 'is', values: ['Spring'] }, fields, false],
    ['trackingField isNot the value', { attribute: 'trackingField', name: 'campaign', operator: 'isNot', values: ['spring'] }, fields, false],
    ['a missing tracking field is ""', { attribute: 'trackingField', name: 'sub9', operator: 'is', values: [''] }, fields, true],
    ['a missing tracking field isNot ""', { attribute: 'trackingField', name: 'sub9', operator: 'isNot', values: [''] }, fields, false],
    ['trackingField contains', { attribute: 'trackingField', name: 'campaign', operator: 'contains', values: ['pri'] }, fields, true],
    ['trackingField notContains', { attribute: 'trackingField', name: 'campaign', operator: 'notContains', values: ['x', 'y'] }, fields, true],
    ['trackingField startsWith', { attribute: 'trackingField', name: 'campaign', operator: 'startsWith', values: ['spr'] }, fields, true],
    ['trackingField endsWith', { attribute: 'trackingField', name: 'campaign', operator: 'endsWith', values: ['ing'] }, fields, true],
    ['a tracking field named with a space', { attribute: 'trackingField', name: 'sub 1', operator: 'is', values: ['a'] }, fields, true],
    ['trackingField does not read the data buffer', { attribute: 'trackingField', name: 'plan', operator: 'is', values: ['pro'] }, fields, false],
    // data buffer
    ['dataBuffer is any of the values', { attribute: 'dataBuffer', name: 'plan', operator: 'is', values: ['pro', 'team'] }, fields, true],
    ['dataBuffer isNot the value', { attribute: 'dataBuffer', name: 'plan', operator: 'isNot', values: ['pro'] }, fields, false],
    ['dataBuffer contains', { attribute: 'dataBuffer', name: 'plan', operator: 'contains', values: ['r'] }, fields, true],
    ['dataBuffer notContains', { attribute: 'dataBuffer', name: 'plan', operator: 'notContains', values: ['pro'] }, fields, false],
    ['dataBuffer startsWith', { attribute: 'dataBuffer', name: 'plan', operator: 'startsWith', values: ['p'] }, fields, true],
    ['dataBuffer endsWith', { attribute: 'dataBuffer', name: 'plan', operator: 'endsWith', values: ['x', 'o'] }, fields, true],
    ['a missing data-buffer entry is ""', { attribute: 'dataBuffer', name: 'email', operator: 'is', values: [''] }, fields, true],
    ['dataBuffer reads own entries only', { attribute: 'dataBuffer', name: 'constructor', operator: 'is', values: [''] }, fields, true],
    ['dataBuffer does not read tracking fields', { attribute: 'dataBuffer', name: 'campaign', operator: 'is', values: ['spring'] }, fields, false],
    // visitor tags
    ['has the tag', { attribute: 'visitorTag', operator: 'has', values: ['vip'] }, { visitorTags: ['vip'] }, true],
    ['has any of the tags', { attribute: 'visitorTag', operator: 'has', values: ['gold', 'vip'] }, { visitorTags: ['vip'] }, true],
    ['has none of the tags', { attribute: 'visitorTag', operator: 'has', values: ['gold'] }, { visitorTags: ['vip'] }, false],
    ['a visitor without tags has none', { attribute: 'visitorTag', operator: 'has', values: ['vip'] }, {}, false],
    ['hasNot: a visitor without tags', { attribute: 'visitorTag', operator: 'hasNot', values: ['vip'] }, {}, true],
    ['hasNot: holds other tags only', { attribute: 'visitorTag', operator: 'hasNot', values: ['gold'] }, { visitorTags: ['vip'] }, true],
    ['hasNot: holds one of the tags', { attribute: 'visitorTag', operator: 'hasNot', values: ['gold', 'vip'] }, { visitorTags: ['vip', 'new'] }, false],
  ])('%s', (_title, rule, input, expected) => {
    expect(validateConditionRoutes(oneRule(rule))).toEqual([]);
    expect(holds(rule, input)).toBe(expected);
  });
});

describe('evaluateCondition: routes and rule groups', () => {
  const us: ConditionRule = { attribute: 'country', operator: 'is', values: ['US'] };
  const mobile: ConditionRule = { attribute: 'deviceType', operator: 'is', values: ['mobile'] };
  const vip: ConditionRule = { attribute: 'visitorTag', operator: 'has', values: ['vip'] };
  const routes: ConditionRoute[] = [
    { idRoute: 'us_mobile', routeName: 'US on mobile', ruleGroups: [{ rules: [us, mobile] }] },
    { idRoute: 'us_or_vip', routeName: 'US or VIP', ruleGroups: [{ rules: [us] }, { rules: [vip] }] },
  ];

  it('given a visitor matching the first route, when evaluated, then the first route wins', () => {
    expect(evaluateCondition(routes, contextOf({ visitor: { country: 'US', deviceType: 'mobile' } }))).toEqual({
      routeKey: 'us_mobile',
      matchedRoute: { idRoute: 'us_mobile', routeName: 'US on mobile' },
      reason: 'route "us_mobile" matched: every rule of its rule group 1 holds',
    });
  });

  it('given a visitor failing one rule of a group, when evaluated, then the group does not match (rules AND)', () => {
    expect(evaluateCondition(routes, contextOf({ visitor: { country: 'US', deviceType: 'desktop' } })).routeKey).toBe('us_or_vip');
  });

  it('given a visitor matching only the second group of a route, when evaluated, then the route matches (groups OR)', () => {
    expect(evaluateCondition(routes, contextOf({ visitor: { country: 'DE' }, visitorTags: ['vip'] }))).toEqual({
      routeKey: 'us_or_vip',
      matchedRoute: { idRoute: 'us_or_vip', routeName: 'US or VIP' },
      reason: 'route "us_or_vip" matched: every rule of its rule group 2 of 2 holds',
    });
  });

  it('given two matching routes, when evaluated, then the earlier one wins', () => {
    const reversed = [routes[1], routes[0]];
    expect(evaluateCondition(reversed, contextOf({ visitor: { country: 'US', deviceType: 'mobile' } })).routeKey).toBe('us_or_vip');
  });

  it('given a visitor no route matches, when evaluated, then the condition answers default without a route', () => {
    expect(evaluateCondition(routes, contextOf({ visitor: { country: 'DE' } }))).toEqual({
      routeKey: 'default',
      matchedRoute: null,
      reason: 'no route matched (2 routes tried), so the condition answers "default"',
    });
  });

  it('given a context without a valid time, when a rule reads the hour, then the condition answers default and says why', () => {
    const result = evaluateCondition(oneRule({ attribute: 'hour', operator: 'gte', values: ['0'] }), VisitorContext.of({ now: new Date(Number.NaN) }));
    expect(result).toEqual({
      routeKey: 'default',
      matchedRoute: null,
      reason: 'the condition could not be evaluated (the current time is missing or invalid), so it answers "default"',
    });
  });

  it('given a rule with an unknown attribute, when evaluated, then it never holds', () => {
    const rule = { attribute: 'planet', operator: 'isNot', values: ['mars'] } as ConditionRule;
    expect(evaluateCondition(oneRule(rule), contextOf({})).routeKey).toBe('default');
  });
});

// ---- validation --------------------------------------------------------------------------------

const validRule: ConditionRule = { attribute: 'country', operator: 'is', values: ['US'] };

/** Valid routes with `patch` applied to the first rule of the first route. */
function withRule(patch: Record<string, unknown>): unknown {
  return [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ ...validRule, ...patch }] }] }];
}

/** Valid routes with `patch` applied to the first route. */
function withRoute(patch: Record<string, unknown>): unknown {
  return [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [validRule] }], ...patch }];
}

/** The problems as `field code`, for compact expectations. */
function problemsOf(routes: unknown): string[] {
  return validateConditionRoutes(routes).map((p) => `${p.field} ${p.code}`);
}

const RULE = 'routes[0].ruleGroups[0].rules[0]';

describe('validateConditionRoutes: the routes list', () => {
  it('given valid routes, when validated, then there is no problem', () => {
    expect(
      validateConditionRoutes([
        { idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [validRule] }] },
        { idRoute: 'night_owls_2', routeName: 'n'.repeat(256), ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'lt', values: ['6'] }] }] },
      ]),
    ).toEqual([]);
  });

  it.each<[string, unknown, string[]]>([
    ['missing', undefined, ['routes REQUIRED']],
    ['not a list', { us: {} }, ['routes INVALID_TYPE']],
    ['empty', [], ['routes TOO_FEW']],
    ['a route that is not an object', ['us'], ['routes[0] INVALID_TYPE']],
  ])('given routes %s, when validated, then it is reported', (_title, routes, expected) => {
    expect(problemsOf(routes)).toEqual(expected);
  });

  it('given 50 routes, when validated, then there is no problem; given 51, then too many', () => {
    const route = (i: number) => ({ idRoute: `r${i}`, routeName: `R${i}`, ruleGroups: [{ rules: [validRule] }] });
    expect(problemsOf(Array.from({ length: 50 }, (_, i) => route(i)))).toEqual([]);
    const tooMany = validateConditionRoutes(Array.from({ length: 51 }, (_, i) => route(i)));
    expect(tooMany).toEqual([{ field: 'routes', code: 'TOO_MANY', message: 'routes must hold at most 50 routes, got 51' }]);
  });

  it('given a problem, when validated, then its message names the field', () => {
    expect(validateConditionRoutes([])).toEqual([{ field: 'routes', code: 'TOO_FEW', message: 'routes must hold at least 1 route' }]);
  });
});

describe('validateConditionRoutes: idRoute and routeName', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing idRoute', { idRoute: undefined }, ['routes[0].idRoute REQUIRED']],
    ['an idRoute that is not a string', { idRoute: 7 }, ['routes[0].idRoute INVALID_TYPE']],
    ['an idRoute with upper case and a hyphen', { idRoute: 'Not-OK' }, ['routes[0].idRoute INVALID_ROUTE_KEY']],
    ['an empty idRoute', { idRoute: '' }, ['routes[0].idRoute INVALID_ROUTE_KEY']],
    ['an idRoute of 65 characters', { idRoute: 'a'.repeat(65) }, ['routes[0].idRoute INVALID_ROUTE_KEY']],
    ['the idRoute default', { idRoute: 'default' }, ['routes[0].idRoute RESERVED_ROUTE_KEY']],
    ['a missing routeName', { routeName: undefined }, ['routes[0].routeName REQUIRED']],
    ['a routeName that is not a string', { routeName: ['US'] }, ['routes[0].routeName INVALID_TYPE']],
    ['an empty routeName', { routeName: '' }, ['routes[0].routeName INVALID_LENGTH']],
    ['a routeName of 257 characters', { routeName: 'n'.repeat(257) }, ['routes[0].routeName INVALID_LENGTH']],
  ])('given %s, when validated, then it is reported', (_title, patch, expected) => {
    expect(problemsOf(withRoute(patch))).toEqual(expected);
  });

  it('given an idRoute of 64 characters, when validated, then there is no problem', () => {
    expect(problemsOf(withRoute({ idRoute: 'a'.repeat(64) }))).toEqual([]);
  });

  it('given two routes with one idRoute, when validated, then the later one is reported', () => {
    const route = { idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [validRule] }] };
    expect(validateConditionRoutes([route, { ...route, routeName: 'Again' }])).toEqual([
      { field: 'routes[1].idRoute', code: 'DUPLICATE_ROUTE_KEY', message: 'routes[1].idRoute "us" is the idRoute of an earlier route' },
    ]);
  });

  it('given the idRoute default, when validated, then the message explains the key is reserved', () => {
    expect(validateConditionRoutes(withRoute({ idRoute: 'default' }))[0].message).toBe(
      'routes[0].idRoute cannot be "default": every condition answers it when no route matches',
    );
  });
});

describe('validateConditionRoutes: rule groups and rules', () => {
  const groups = (count: number) => Array.from({ length: count }, () => ({ rules: [validRule] }));
  const rules = (count: number) => [{ rules: Array.from({ length: count }, () => validRule) }];

  it.each<[string, Record<string, unknown>, string[]]>([
    ['missing rule groups', { ruleGroups: undefined }, ['routes[0].ruleGroups REQUIRED']],
    ['rule groups that are not a list', { ruleGroups: { rules: [] } }, ['routes[0].ruleGroups INVALID_TYPE']],
    ['no rule group', { ruleGroups: [] }, ['routes[0].ruleGroups TOO_FEW']],
    ['21 rule groups', { ruleGroups: groups(21) }, ['routes[0].ruleGroups TOO_MANY']],
    ['20 rule groups', { ruleGroups: groups(20) }, []],
    ['a rule group that is not an object', { ruleGroups: [[validRule]] }, ['routes[0].ruleGroups[0] INVALID_TYPE']],
    ['a rule group without rules', { ruleGroups: [{}] }, ['routes[0].ruleGroups[0].rules REQUIRED']],
    ['rules that are not a list', { ruleGroups: [{ rules: validRule }] }, ['routes[0].ruleGroups[0].rules INVALID_TYPE']],
    ['a rule group with no rule', { ruleGroups: rules(0) }, ['routes[0].ruleGroups[0].rules TOO_FEW']],
    ['a rule group with 21 rules', { ruleGroups: rules(21) }, ['routes[0].ruleGroups[0].rules TOO_MANY']],
    ['a rule group with 20 rules', { ruleGroups: rules(20) }, []],
    ['a rule that is not an object', { ruleGroups: [{ rules: ['country is US'] }] }, [`${RULE} INVALID_TYPE`]],
  ])('given %s, when validated, then %j', (_title, patch, expected) => {
    expect(problemsOf(withRoute(patch))).toEqual(expected);
  });
});

describe('validateConditionRoutes: attributes and operators', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a missing attribute', { attribute: undefined }, [`${RULE}.attribute REQUIRED`]],
    ['an attribute that is not a string', { attribute: 1 }, [`${RULE}.attribute INVALID_TYPE`]],
    ['an unknown attribute', { attribute: 'planet' }, [`${RULE}.attribute UNKNOWN_ATTRIBUTE`]],
    ['a missing operator', { operator: undefined }, [`${RULE}.operator REQUIRED`]],
    ['an unknown operator', { operator: 'matches' }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['an integer operator on a string attribute', { attribute: 'country', operator: 'gt' }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['a tag operator on a string attribute', { attribute: 'city', operator: 'has' }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['a string operator on an integer attribute', { attribute: 'hour', operator: 'contains', values: ['1'] }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['a string operator on visitorTag', { attribute: 'visitorTag', operator: 'is' }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['an integer operator on trackingField', { attribute: 'trackingField', name: 'sub1', operator: 'lt' }, [`${RULE}.operator INVALID_OPERATOR`]],
    ['a tag operator on dataBuffer', { attribute: 'dataBuffer', name: 'plan', operator: 'hasNot' }, [`${RULE}.operator INVALID_OPERATOR`]],
  ])('given %s, when validated, then it is reported', (_title, patch, expected) => {
    expect(problemsOf(withRule(patch))).toEqual(expected);
  });

  it('given an attribute in the wrong case, when validated, then the message suggests the attribute', () => {
    expect(validateConditionRoutes(withRule({ attribute: 'Country' }))[0].message).toBe(
      `${RULE}.attribute "Country" is not a condition attribute (did you mean country?); the attributes are the visitor variables of the logic-script language, trackingField, dataBuffer and visitorTag`,
    );
  });

  it('given an operator of another class, when validated, then the message lists the allowed ones', () => {
    expect(validateConditionRoutes(withRule({ attribute: 'hour', operator: 'contains', values: ['1'] }))[0].message).toBe(
      `${RULE}.operator "contains" is not an operator of integer attribute hour; use one of is, isNot, gt, gte, lt, lte`,
    );
  });

  const example: Record<ConditionAttributeClass, Partial<ConditionRule>> = {
    string: { attribute: 'browser', values: ['Chrome'] },
    integer: { attribute: 'utcOffsetHours', values: ['-5'] },
    trackingField: { attribute: 'trackingField', name: 'sub1', values: ['a'] },
    dataBuffer: { attribute: 'dataBuffer', name: 'plan', values: ['pro'] },
    visitorTag: { attribute: 'visitorTag', values: ['vip'] },
  };
  const allowed = (Object.keys(CONDITION_OPERATORS) as ConditionAttributeClass[]).flatMap((c) =>
    CONDITION_OPERATORS[c].map((operator) => [c, operator] as const),
  );

  it.each(allowed)('given a %s attribute with the operator %s, when validated, then there is no problem', (attributeClass, operator) => {
    expect(problemsOf(withRule({ ...example[attributeClass], operator }))).toEqual([]);
  });
});

describe('validateConditionRoutes: names', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['trackingField without a name', { attribute: 'trackingField' }, [`${RULE}.name REQUIRED`]],
    ['dataBuffer without a name', { attribute: 'dataBuffer' }, [`${RULE}.name REQUIRED`]],
    ['a name that is not a string', { attribute: 'dataBuffer', name: 5 }, [`${RULE}.name INVALID_TYPE`]],
    ['an empty name', { attribute: 'trackingField', name: '' }, [`${RULE}.name INVALID_NAME`]],
    ['a name with a dot', { attribute: 'trackingField', name: 'a.b' }, [`${RULE}.name INVALID_NAME`]],
    ['a name of 65 characters', { attribute: 'dataBuffer', name: 'n'.repeat(65) }, [`${RULE}.name INVALID_NAME`]],
    ['a name with letters, digits, underscores, spaces and hyphens', { attribute: 'dataBuffer', name: 'Sub_1 a-b' }, []],
    ['a name on a string variable', { attribute: 'country', name: 'x' }, [`${RULE}.name NAME_NOT_ALLOWED`]],
    ['a name on an integer variable', { attribute: 'hour', name: 'x', values: ['1'] }, [`${RULE}.name NAME_NOT_ALLOWED`]],
    ['a name on visitorTag', { attribute: 'visitorTag', operator: 'has', name: 'x' }, [`${RULE}.name NAME_NOT_ALLOWED`]],
  ])('given %s, when validated, then %j', (_title, patch, expected) => {
    expect(problemsOf(withRule(patch))).toEqual(expected);
  });
});

describe('validateConditionRoutes: values', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['missing values', { values: undefined }, [`${RULE}.values REQUIRED`]],
    ['values that are not a list', { values: 'US' }, [`${RULE}.values INVALID_TYPE`]],
    ['no value', { values: [] }, [`${RULE}.values TOO_FEW`]],
    ['501 values', { values: Array.from({ length: 501 }, (_, i) => `v${i}`) }, [`${RULE}.values TOO_MANY`]],
    ['500 values', { values: Array.from({ length: 500 }, (_, i) => `v${i}`) }, []],
    ['a value that is not a string', { values: ['US', 1] }, [`${RULE}.values[1] INVALID_TYPE`]],
    ['a value of 257 characters', { values: ['v'.repeat(257)] }, [`${RULE}.values[0] INVALID_LENGTH`]],
    ['a value of 256 characters', { values: ['v'.repeat(256)] }, []],
    ['an empty value', { values: [''] }, []],
    ['integers for an integer attribute', { attribute: 'utcOffsetHours', values: ['-5', '0', '14'] }, []],
    ['a fraction for an integer attribute', { attribute: 'hour', values: ['1.5'] }, [`${RULE}.values[0] NOT_AN_INTEGER`]],
    ['a word for an integer attribute', { attribute: 'minute', values: ['10', 'ten'] }, [`${RULE}.values[1] NOT_AN_INTEGER`]],
    ['an empty value for an integer attribute', { attribute: 'year', values: [''] }, [`${RULE}.values[0] NOT_AN_INTEGER`]],
    ['a padded value for an integer attribute', { attribute: 'month', values: [' 1'] }, [`${RULE}.values[0] NOT_AN_INTEGER`]],
    ['an exponent for an integer attribute', { attribute: 'weekday', values: ['1e2'] }, [`${RULE}.values[0] NOT_AN_INTEGER`]],
    ['a 16-digit value for an integer attribute', { attribute: 'year', values: ['1'.repeat(16)] }, [`${RULE}.values[0] NOT_AN_INTEGER`]],
  ])('given %s, when validated, then %j', (_title, patch, expected) => {
    expect(problemsOf(withRule(patch))).toEqual(expected);
  });
});

describe('validateConditionRoutes: many problems', () => {
  it('given several problems, when validated, then every one is reported with its path', () => {
    expect(
      problemsOf([
        { idRoute: 'Bad', routeName: '', ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'has', values: ['x'] }] }] },
        { idRoute: 'ok', routeName: 'OK', ruleGroups: [{ rules: [validRule] }, { rules: [{ attribute: 'trackingField', operator: 'is', values: [] }] }] },
      ]),
    ).toEqual([
      'routes[0].idRoute INVALID_ROUTE_KEY',
      'routes[0].routeName INVALID_LENGTH',
      'routes[0].ruleGroups[0].rules[0].operator INVALID_OPERATOR',
      'routes[0].ruleGroups[0].rules[0].values[0] NOT_AN_INTEGER',
      'routes[1].ruleGroups[1].rules[0].name REQUIRED',
      'routes[1].ruleGroups[1].rules[0].values TOO_FEW',
    ]);
  });

  it('given 10,000 bad values, when validated, then 20 problems are reported and the rest counted', () => {
    const routes = Array.from({ length: 20 }, (_, r) => ({
      idRoute: `r${r}`,
      routeName: 'R',
      ruleGroups: [{ rules: [{ attribute: 'hour', operator: 'is', values: Array.from({ length: 500 }, () => 'x') }] }],
    }));
    const problems = validateConditionRoutes(routes);
    expect(problems).toHaveLength(21);
    expect(problems[20]).toEqual({ field: 'routes', code: 'MORE_PROBLEMS', message: 'and 9980 more problems' });
  });

  it('given a very long attribute, when validated, then the message echoes at most 64 characters of it', () => {
    const [problem] = validateConditionRoutes(withRule({ attribute: 'a'.repeat(100_000) }));
    expect(problem.message).toContain(`"${'a'.repeat(64)}…" is not a condition attribute`);
    expect(problem.message.length).toBeLessThan(300);
  });
});

describe('the visitor-tag references, route keys and normal form of a condition', () => {
  const routes: ConditionRoute[] = [
    {
      idRoute: 'vip',
      routeName: 'VIP',
      ruleGroups: [{ rules: [validRule] }, { rules: [validRule, { attribute: 'visitorTag', operator: 'has', values: ['t1', 't2'] }] }],
    },
    { idRoute: 'new', routeName: 'New', ruleGroups: [{ rules: [{ attribute: 'visitorTag', operator: 'hasNot', values: ['t1'] }] }] },
  ];

  it('given rules on visitor tags, when their ids are listed, then each comes with the path of its value', () => {
    expect(visitorTagIdsOf(routes)).toEqual([
      { field: 'routes[0].ruleGroups[1].rules[1].values[0]', id: 't1' },
      { field: 'routes[0].ruleGroups[1].rules[1].values[1]', id: 't2' },
      { field: 'routes[1].ruleGroups[0].rules[0].values[0]', id: 't1' },
    ]);
  });

  it('given rules on other attributes only, when tag ids are listed, then there is none', () => {
    expect(visitorTagIdsOf(oneRule(validRule))).toEqual([]);
  });

  it('lists the route keys in order, then default', () => {
    expect(conditionRouteKeys(routes)).toEqual(['vip', 'new', 'default']);
  });

  it('keeps only the fields of a condition, and name only for tracking fields and data buffer', () => {
    const sent = [
      {
        idRoute: 'a',
        routeName: 'A',
        color: 'red',
        ruleGroups: [
          {
            label: 'x',
            rules: [
              { ...validRule, note: 'x' },
              { attribute: 'dataBuffer', name: 'plan', operator: 'is', values: ['pro'], extra: 1 },
            ],
          },
        ],
      },
    ] as unknown as ConditionRoute[];
    expect(normalizeConditionRoutes(sent)).toEqual([
      { idRoute: 'a', routeName: 'A', ruleGroups: [{ rules: [validRule, { attribute: 'dataBuffer', name: 'plan', operator: 'is', values: ['pro'] }] }] },
    ]);
  });
});

// ---- properties --------------------------------------------------------------------------------

describe('condition properties', () => {
  const text = fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'b', 'A', '') });
  const strings = fc.array(text, { minLength: 1, maxLength: 4 });

  it('the negative operators are the negation of their positive ones', () => {
    fc.assert(
      fc.property(text, strings, fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 3 }), fc.integer({ min: 0, max: 23 }), (value, values, tags, hour) => {
        const context = contextOf({
          visitor: { city: value },
          trackingFields: { f: value },
          visitorTags: tags,
          time: `2025-01-01T${String(hour).padStart(2, '0')}:00:00Z`,
        });
        const holdsFor = (rule: ConditionRule) => evaluateCondition(oneRule(rule), context).routeKey === 'yes';
        const hours = values.map((v) => String(v.length * 5));
        expect(holdsFor({ attribute: 'city', operator: 'isNot', values })).toBe(!holdsFor({ attribute: 'city', operator: 'is', values }));
        expect(holdsFor({ attribute: 'trackingField', name: 'f', operator: 'notContains', values })).toBe(
          !holdsFor({ attribute: 'trackingField', name: 'f', operator: 'contains', values }),
        );
        expect(holdsFor({ attribute: 'hour', operator: 'isNot', values: hours })).toBe(!holdsFor({ attribute: 'hour', operator: 'is', values: hours }));
        expect(holdsFor({ attribute: 'visitorTag', operator: 'hasNot', values })).toBe(!holdsFor({ attribute: 'visitorTag', operator: 'has', values }));
        // With one value, gt is the negation of lte and lt that of gte.
        const [one] = hours;
        expect(holdsFor({ attribute: 'hour', operator: 'gt', values: [one] })).toBe(!holdsFor({ attribute: 'hour', operator: 'lte', values: [one] }));
        expect(holdsFor({ attribute: 'hour', operator: 'lt', values: [one] })).toBe(!holdsFor({ attribute: 'hour', operator: 'gte', values: [one] }));
      }),
    );
  });

  const ruleArb: fc.Arbitrary<ConditionRule> = fc.oneof(
    fc.record({ attribute: fc.constantFrom('country', 'city', 'userAgent'), operator: fc.constantFrom(...CONDITION_OPERATORS.string), values: strings }),
    fc.record({
      attribute: fc.constantFrom('hour', 'weekday', 'utcOffsetHours'),
      operator: fc.constantFrom(...CONDITION_OPERATORS.integer),
      values: fc.array(fc.integer({ min: -12, max: 23 }).map(String), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ attribute: fc.constant('visitorTag'), operator: fc.constantFrom(...CONDITION_OPERATORS.visitorTag), values: strings }),
  ) as fc.Arbitrary<ConditionRule>;
  const routesArb = fc
    .uniqueArray(
      fc.stringMatching(/^[a-z0-9_]{1,8}$/).filter((key) => key !== 'default'),
      { minLength: 1, maxLength: 5 },
    )
    .chain((keys) =>
      fc.tuple(
        ...keys.map((idRoute) =>
          fc.record({
            idRoute: fc.constant(idRoute),
            routeName: fc.constant(`Route ${idRoute}`),
            ruleGroups: fc.array(fc.record({ rules: fc.array(ruleArb, { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
          }),
        ),
      ),
    );

  it('valid routes have no problem, and a visitor goes to the first route that matches alone, else default', () => {
    fc.assert(
      fc.property(
        routesArb,
        text,
        fc.array(
          text.filter((tag) => tag.length > 0),
          { maxLength: 2 },
        ),
        (routes, city, tags) => {
          expect(validateConditionRoutes(routes)).toEqual([]);
          const context = contextOf({ visitor: { city, country: city, utcOffsetHours: 3 }, visitorTags: tags, time: '2025-06-15T10:00:00Z' });
          const result = evaluateCondition(routes, context);
          const first = routes.find((route) => evaluateCondition([route], context).routeKey === route.idRoute);
          expect(result.routeKey).toBe(first?.idRoute ?? 'default');
          expect(conditionRouteKeys(routes)).toContain(result.routeKey);
          expect(result.matchedRoute).toEqual(first ? { idRoute: first.idRoute, routeName: first.routeName } : null);
        },
      ),
    );
  });
});
