import { ErrorCodes, ServiceError } from '@funnel/contracts';
import { type DryRunInput, dryRunProblems, visitorContextOf } from '@funnel/visitor-context';
import type { AssetRecord } from '../asset-events';
import {
  type ConditionRoute,
  conditionRouteKeys,
  evaluateCondition,
  normalizeConditionRoutes,
  validateConditionRoutes,
  visitorTagIdsOf,
} from './condition-rules';
import type { KindRules } from './kind-rules';

const routesOf = (record: AssetRecord) => record.routes as ConditionRoute[];

/**
 * Conditions: routes of rule groups, checked by the condition rules; visitor-tag rule values are
 * references to live visitor tags; the slim record lists the route keys (plus `default`); a dry
 * run takes the visitor context that `/logicscripts/evaluate` takes.
 */
export const conditionRules: KindRules = {
  check: (record) => validateConditionRoutes(record.routes),
  normalize: (record) => ({ ...record, routes: normalizeConditionRoutes(routesOf(record)) }),
  references: (record) => visitorTagIdsOf(routesOf(record)).map(({ field, id }) => ({ field, kind: 'visitortag', id })),
  slim: (record) => ({ routeKeys: conditionRouteKeys(routesOf(record)) }),

  evaluate(record, input) {
    const problems = dryRunProblems(input);
    if (problems.length) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid visitor context: ${problems[0].message}`, problems);
    return evaluateCondition(routesOf(record), visitorContextOf(input as unknown as DryRunInput));
  },
};
