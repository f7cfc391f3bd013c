// The warnings that hold for every walk of a funnel: the funnel's own (funnelWarnings of
// @funnel/assets-domain, as POST /funnel/validate/ reports them) over the assets given.
import { type FunnelWarningContext, conditionRouteKeys, type ConditionRoute, funnelWarnings } from '@funnel/assets-domain';
import type { FunnelAssets, RoutingWarning } from '../model';
import type { AssetIndex, AssetKindName } from './asset-index';
import { list, text } from './records';

const ARCHIVABLE: readonly AssetKindName[] = ['pagegroup', 'condition', 'logicscript', 'visitortag', 'middlewareconfig', 'webhookconfig', 'ainodesetting'];
const NODE_FIELD = /^nodes\[(\d+)\]/;

export function funnelStaticWarnings(assets: FunnelAssets, index: AssetIndex): RoutingWarning[] {
  const context: FunnelWarningContext = {
    conditionRouteKeys: new Map(
      [...index.records('condition')].map((record) => [text(record, 'idCondition'), conditionRouteKeys(list(record, 'routes') as ConditionRoute[])]),
    ),
    logicScriptRouteKeys: new Map(
      [...index.records('logicscript')].map((record) => [
        text(record, 'idLogicScript'),
        list(record, 'routeKeys').filter((key): key is string => typeof key === 'string'),
      ]),
    ),
    pageGroupPageCounts: new Map([...index.records('pagegroup')].map((record) => [text(record, 'idPageGroup'), list(record, 'pages').length])),
    archived: new Map(ARCHIVABLE.map((kind) => [kind, index.idsWithStatus(kind, 'archived')])),
  };
  const nodes = assets.funnel.nodes ?? [];
  return funnelWarnings(assets.funnel, context).map((problem) => {
    const at = NODE_FIELD.exec(problem.field);
    const idNode = at ? nodes[Number(at[1])]?.idNode : undefined;
    return idNode === undefined ? { code: problem.code, message: problem.message } : { code: problem.code, idNode, message: problem.message };
  });
}
