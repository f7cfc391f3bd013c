import Ajv2020 from 'ajv/dist/2020';
import { CONDITION_ROUTES_SCHEMA, CONDITION_ROUTE_SCHEMAS, SCHEMA_REF_PREFIX } from '@funnel/contracts';
import { STRING_VARIABLE_NAMES, INTEGER_VARIABLE_NAMES } from '@funnel/visitor-context';
import { CONDITION_OPERATORS, validateConditionRoutes } from './condition-rules';

// The API document's route schema is built from the rule tables validateConditionRoutes applies:
// routes the rules accept match it, and a field the rules refuse for its shape does not.
const ajv = new Ajv2020({ strict: true, allErrors: true });
ajv.addVocabulary(['components']);
ajv.addSchema({ $id: 'doc', components: { schemas: CONDITION_ROUTE_SCHEMAS } });
const routesSchema = ajv.compile({ ...CONDITION_ROUTES_SCHEMA, items: { $ref: `doc${SCHEMA_REF_PREFIX}ConditionRoute` } });

const TAG = '0AbCdEfGhIjK';
const rule = (attribute: string, operator: string, values: string[], name?: string) => ({ attribute, operator, values, ...(name ? { name } : {}) });
const routes = (...rules: Record<string, unknown>[]) => [{ idRoute: 'mobile', routeName: 'Mobile', ruleGroups: [{ rules }] }];

describe("the API document's condition route schema", () => {
  it('matches routes with a rule of every operator of every attribute class, and of every variable of the language', () => {
    const accepted = [
      routes(...CONDITION_OPERATORS.string.map((op) => rule(STRING_VARIABLE_NAMES[0], op, ['US']))),
      routes(...CONDITION_OPERATORS.integer.map((op) => rule(INTEGER_VARIABLE_NAMES[0], op, ['-5', '12']))),
      routes(...CONDITION_OPERATORS.trackingField.map((op) => rule('trackingField', op, [''], 'sub 1'))),
      routes(...CONDITION_OPERATORS.dataBuffer.map((op) => rule('dataBuffer', op, ['x'], 'score'))),
      routes(...CONDITION_OPERATORS.visitorTag.map((op) => rule('visitorTag', op, [TAG]))),
      [...STRING_VARIABLE_NAMES, ...INTEGER_VARIABLE_NAMES].map((attribute, i) => ({
        idRoute: `r${i}`,
        routeName: attribute,
        ruleGroups: [{ rules: [rule(attribute, 'isNot', ['1'])] }],
      })),
      [
        ...routes(rule('country', 'is', ['US'])),
        { idRoute: 'night', routeName: 'N', ruleGroups: [{ rules: [rule('hour', 'lt', ['6'])] }, { rules: [rule('hour', 'gte', ['22'])] }] },
      ],
    ];
    for (const candidate of accepted) {
      expect(validateConditionRoutes(candidate)).toEqual([]);
      expect([routesSchema(candidate), routesSchema.errors]).toEqual([true, null]);
    }
  });

  const refused: Record<string, unknown> = {
    'no routes': [],
    'a route key in upper case': [{ ...routes(rule('country', 'is', ['US']))[0], idRoute: 'Mobile' }],
    'the route key default': [{ ...routes(rule('country', 'is', ['US']))[0], idRoute: 'default' }],
    'an empty route name': [{ ...routes(rule('country', 'is', ['US']))[0], routeName: '' }],
    'no rule groups': [{ idRoute: 'a', routeName: 'A', ruleGroups: [] }],
    'a rule group without rules': [{ idRoute: 'a', routeName: 'A', ruleGroups: [{ rules: [] }] }],
    'a rule without values': routes(rule('country', 'is', [])),
    'a value of 257 characters': routes(rule('country', 'is', ['x'.repeat(257)])),
    'a value that is a number': routes({ attribute: 'country', operator: 'is', values: [1] }),
    'an unknown operator': routes(rule('country', 'matches', ['US'])),
    'has on a string variable': routes(rule('country', 'has', ['US'])),
    'contains on visitor tags': routes(rule('visitorTag', 'contains', [TAG])),
    'a tracking field without a name': routes(rule('trackingField', 'is', ['x'])),
    'a name with a slash': routes(rule('dataBuffer', 'is', ['x'], 'a/b')),
    'a name on a variable': routes(rule('country', 'is', ['US'], 'x')),
    'a name on visitor tags': routes(rule('visitorTag', 'has', [TAG], 'x')),
    'a rule without an operator': routes({ attribute: 'country', values: ['US'] }),
    'an attribute that is no variable': routes(rule('planet', 'is', ['mars'])),
    'an attribute in the wrong case': routes(rule('Country', 'is', ['US'])),
    'contains on an integer variable': routes(rule('hour', 'contains', ['1'])),
    'gt on a string variable': routes(rule('country', 'gt', ['US'])),
    'a value of an integer variable that is no integer': routes(rule('hour', 'gte', ['ten'])),
  };
  it.each(Object.entries(refused))('refuses what the rules refuse: %s', (_name, candidate) => {
    expect(validateConditionRoutes(candidate)).not.toEqual([]);
    expect(routesSchema(candidate)).toBe(false);
  });
});
