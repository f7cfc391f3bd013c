import { ErrorCodes, assetKindByName } from '@funnel/contracts';
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
  // Every asset the nodes name, by kind: each kind read once.
  const idsByKind = new Map<string, Set<string>>();
  for (const named of (Array.isArray(record.nodes) ? record.nodes : []).flatMap((node) => nodeAssetIds(node))) {
    const ids = idsByKind.get(named.kind) ?? idsByKind.set(named.kind, new Set()).get(named.kind)!;
    ids.add(named.id);
  }
  const byKind = new Map(await Promise.all([...idsByKind].map(async ([kind, ids]) => [kind, await read(kind, [...ids])] as const)));
  const [conditions, scripts, pageGroups] = [byKind.get('condition') ?? [], byKind.get('logicscript') ?? [], byKind.get('pagegroup') ?? []];
  const archived = new Map<string, Set<string>>();
  for (const [kind, records] of byKind) {
    const idField = assetKindByName(kind)?.idField;
    if (idField) archived.set(kind, new Set(records.filter((r) => r.status === 'archived').map((r) => String(r[idField]))));
  }
  return {
    archived,
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
