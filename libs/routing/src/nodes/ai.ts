// AI nodes: route like a logic node, on the keys its connections take (`default` only when it is the
// only key), each key drawn with a share: proportional to the key's score in
// assets.aiScores[idAINodeSetting] (no scores, or none positive: equal shares), then lifted so that
// every key gets at least the setting's calculationParams.minimumPercentagePerVariant percent:
// share = m + (1 - k*m) * proportional share, for k keys and m the minimum as a fraction (k*m >= 1:
// equal shares).
import type { FunnelNode } from '@funnel/assets-domain';
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import { num, obj } from '../compile/records';
import * as shares from '../random/shares';
import type { Walk } from '../walk/walk';
import { type KeyedEdges, keyedEdges } from './route-keys';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { cumulativeOf, pick, sharesOf } = shares;

const MINIMUM = 'minimumPercentagePerVariant';

interface AiData {
  readonly idAINodeSetting: string;
  readonly edges: KeyedEdges;
  readonly keys: readonly string[];
  readonly shares: Readonly<Record<string, number>>;
  readonly cumulative: Float64Array;
  readonly reason: string;
}

/** The shares of the keys from their scores and the minimum percentage per variant. */
export function aiShares(keys: readonly string[], scores: Readonly<Record<string, number>> | undefined, minimumPercent: number): number[] {
  const proportional = sharesOf(keys.map((key) => (scores && Object.prototype.hasOwnProperty.call(scores, key) ? scores[key] : 0)));
  const floor = Math.min(Math.max(minimumPercent, 0), 100) / 100;
  if (floor * keys.length >= 1) return keys.map(() => 1 / keys.length);
  return proportional.map((share) => floor + (1 - keys.length * floor) * share);
}

export const aiFamily: NodeFamily<AiData> = {
  serverSide: true,
  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): AiData {
    const idAINodeSetting = ('nodeAiParams' in node && node.nodeAiParams?.idAINodeSetting) || '';
    const setting = context.index.get('ainodesetting', idAINodeSetting);
    if (setting === undefined) context.warn('missingAsset', `AI node setting ${idAINodeSetting} is not among the funnel's assets; its keys get equal shares`);
    const edges = keyedEdges(out);
    const keys = edges.keys.length === 1 ? edges.keys : edges.keys.filter((key) => key !== FALLBACK_ROUTE_KEY);
    const scores = context.assets.aiScores?.[idAINodeSetting];
    const minimum = num(obj(setting, 'calculationParams'), MINIMUM, 0);
    const shares = aiShares(keys, scores, minimum);
    const scored = scores !== undefined && keys.some((key) => (scores[key] ?? 0) > 0);
    return {
      idAINodeSetting,
      edges,
      keys,
      shares: Object.freeze(Object.fromEntries(keys.map((key, i) => [key, shares[i]]))),
      cumulative: cumulativeOf(shares),
      reason: `${scored ? "shares from the keys' scores" : 'no scores yet, equal shares'}${minimum > 0 ? `, at least ${minimum}% each` : ''}`,
    };
  },

  run(node: GraphNode<AiData>, walk: Walk): NodeStep {
    const { data } = node;
    if (data.keys.length === 0) return walk.deadEnd(node.idNode, 'deadEnd', `AI node ${node.idNode} (${node.nodeName}) has no connection to route to`);
    const drawn = walk.input.random();
    const routeKey = data.keys[pick(data.cumulative, drawn)];
    const edge = data.edges.byKey.get(routeKey)!;
    walk.record(node, {
      kind: 'ai',
      idAINodeSetting: data.idAINodeSetting,
      routeKey,
      drawn,
      shares: data.shares,
      reason: `"${routeKey}" drawn: ${data.reason}`,
      idConnection: edge.idConnection,
    });
    return edge.idTargetNode;
  },
};
