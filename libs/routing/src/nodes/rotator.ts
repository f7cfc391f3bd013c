// Root and rotator nodes: a connection drawn by weight (weights normalised to shares; all zero: equal
// shares). A `session` rotator sends a returning visitor down the connection chosen the first time,
// as long as that connection still exists.
import type { FunnelNode } from '@funnel/assets-domain';
import type { CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import * as shares from '../random/shares';
import type { Walk } from '../walk/walk';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { cumulativeOf, pick, sharesOf } = shares;

interface RotatorData {
  readonly shares: readonly number[];
  readonly cumulative: Float64Array;
  readonly sticky: boolean;
}

export const rotatorFamily: NodeFamily<RotatorData> = {
  serverSide: true,
  compile(node: FunnelNode, out: readonly CompiledEdge[]): RotatorData {
    const shares = sharesOf(out.map((edge) => edge.connection.connectionRotatorParams?.weight ?? 0));
    const params = 'nodeRotatorParams' in node ? node.nodeRotatorParams : undefined;
    return { shares, cumulative: cumulativeOf(shares), sticky: params?.rotatorType === 'session' };
  },

  run(node: GraphNode<RotatorData>, walk: Walk): NodeStep {
    const { out, data } = node;
    if (out.length === 0) return walk.deadEnd(node.idNode, 'deadEnd', `node ${node.idNode} (${node.nodeName}) has no outgoing connection`);
    if (data.sticky) {
      const chosen = walk.session.sticky[node.idNode];
      const index = chosen === undefined ? -1 : out.findIndex((edge) => edge.idConnection === chosen);
      if (index >= 0) {
        walk.record(node, { kind: 'weight', drawn: -1, idConnection: chosen, share: data.shares[index], sticky: true });
        return out[index].idTargetNode;
      }
    }
    const drawn = walk.input.random();
    const index = pick(data.cumulative, drawn);
    const edge = out[index];
    if (data.sticky) walk.stick(node.idNode, edge.idConnection);
    walk.record(node, { kind: 'weight', drawn, idConnection: edge.idConnection, share: data.shares[index], sticky: false });
    return edge.idTargetNode;
  },
};
