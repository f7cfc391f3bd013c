// Condition nodes: the condition's routes evaluated as POST /condition/evaluate/ does (first matching
// route, else `default`), over the visitor's attributes, the session's tracking fields, URL buffer and
// tags, and the request's time.
import * as assetsDomain from '@funnel/assets-domain';
import type { ConditionRoute, FunnelNode } from '@funnel/assets-domain';
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import { list } from '../compile/records';
import type { Walk } from '../walk/walk';
import { type KeyedEdges, edgeForKey, keyedEdges, noRouteReason } from './route-keys';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { evaluateCondition } = assetsDomain;

interface ConditionData {
  readonly idCondition: string;
  /** The routes, or null when the condition is not among the assets (the node then answers `default`). */
  readonly routes: readonly ConditionRoute[] | null;
  readonly edges: KeyedEdges;
}

export const conditionFamily: NodeFamily<ConditionData> = {
  serverSide: true,
  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): ConditionData {
    const idCondition = ('nodeConditionParams' in node && node.nodeConditionParams?.idCondition) || '';
    const condition = context.index.get('condition', idCondition);
    if (condition === undefined)
      context.warn('missingAsset', `condition ${idCondition} is not among the funnel's assets; the node answers ${FALLBACK_ROUTE_KEY}`);
    return { idCondition, routes: condition === undefined ? null : (list(condition, 'routes') as ConditionRoute[]), edges: keyedEdges(out) };
  },

  run(node: GraphNode<ConditionData>, walk: Walk): NodeStep {
    const { data } = node;
    const evaluation =
      data.routes === null
        ? { routeKey: FALLBACK_ROUTE_KEY, matchedRoute: null, reason: `condition ${data.idCondition} is missing, so the node answers "${FALLBACK_ROUTE_KEY}"` }
        : evaluateCondition(data.routes, walk.visitorContext());
    const edge = edgeForKey(data.edges, evaluation.routeKey);
    walk.record(node, {
      kind: 'condition',
      idCondition: data.idCondition,
      routeKey: evaluation.routeKey,
      matchedRoute: evaluation.matchedRoute,
      reason: evaluation.reason,
      idConnection: edge?.idConnection ?? null,
    });
    return edge === undefined ? walk.deadEnd(node.idNode, 'noDefaultRoute', noRouteReason(node, evaluation.routeKey)) : edge.idTargetNode;
  },
};
