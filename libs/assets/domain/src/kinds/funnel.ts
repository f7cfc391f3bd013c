import { ErrorCodes } from '@funnel/contracts';
import type { AssetRecord } from '../asset-events';
import { type ConditionRoute, conditionRouteKeys } from './condition-rules';
import type { AssetReader, KindRules } from './kind-rules';
import {
  type FunnelRecord,
  type FunnelWarningContext,
  checkFunnelGraph,
  duplicateFunnel,
  funnelReferences,
  funnelWarnings,
  nodeAssetIds,
} from './funnel/index';

/** What funnelWarnings needs of the conditions, logic scripts and page groups a funnel's nodes name, read through `read`. */
export async function funnelWarningContext(record: AssetRecord, read: AssetReader): Promise<FunnelWarningContext> {
  const ids = (kind: string) => [
    ...new Set(
      (Array.isArray(record.nodes) ? record.nodes : [])
        .flatMap((node) => nodeAssetIds(node))
        .filter((n) => n.kind === kind)
        .map((n) => n.id),
    ),
  ];
  const [conditions, scripts, pageGroups] = await Promise.all([
    read('condition', ids('condition')),
    read('logicscript', ids('logicscript')),
    read('pagegroup', ids('pagegroup')),
  ]);
  return {
    conditionRouteKeys: new Map(conditions.map((c) => [String(c.idCondition), conditionRouteKeys(c.routes as ConditionRoute[])])),
    logicScriptRouteKeys: new Map(scripts.map((s) => [String(s.idLogicScript), Array.isArray(s.routeKeys) ? (s.routeKeys as string[]) : []])),
    pageGroupPageCounts: new Map(pageGroups.map((g) => [String(g.idPageGroup), Array.isArray(g.pages) ? g.pages.length : 0])),
  };
}

/**
 * Funnels: the graph rules (checkFunnelGraph) as the check, and every asset the funnel names
 * (funnelReferences: its funnel group, what its nodes name, the traffic sources of its overrides)
 * as references, both a 400 `FUNNEL.INVALID` whose details name each node or connection; the
 * validate route's warnings are funnelWarnings, given what the read model knows of the named assets.
 */
export const funnelRules: KindRules = {
  checkCode: ErrorCodes.FUNNEL_INVALID,
  referenceCode: ErrorCodes.FUNNEL_INVALID,
  check: (record) => checkFunnelGraph(record),
  references: (record) => funnelReferences(record),
  remapDuplicate: (copy, idMap) => duplicateFunnel(copy as unknown as FunnelRecord, String(copy.idFunnel), idMap) as unknown as AssetRecord,
  warnings: async (record, read) => funnelWarnings(record, await funnelWarningContext(record, read)),
};
