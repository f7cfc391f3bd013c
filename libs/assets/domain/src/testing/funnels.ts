import { generateAssetId } from '@funnel/contracts';

export interface LargeFunnelOptions {
  idFunnelGroup: string;
  funnelName?: string;
  /** Nodes in all (even, at least 4): a root, a rotator, then pairs of lander and offer nodes. */
  nodes?: number;
  /** The lander and offer page groups the nodes name, taken in turn. */
  landerGroups: readonly string[];
  offerGroups: readonly string[];
}

/**
 * A funnel record of many nodes for tests and benchmarks: a root leading to a rotator, which spreads
 * traffic evenly over lander nodes, each leading on its first action to an offer node (default 200
 * nodes: 99 pairs). Every node and connection has a fresh id.
 */
export function aLargeFunnel({
  idFunnelGroup,
  funnelName = 'large funnel',
  nodes = 200,
  landerGroups,
  offerGroups,
}: LargeFunnelOptions): Record<string, unknown> {
  const node = (nodeType: string, params: Record<string, unknown> = {}) => ({
    idNode: generateAssetId(),
    nodeName: `${nodeType} node`,
    nodeType,
    posX: 0.5,
    posY: 0.5,
    ...params,
  });
  const root = node('root');
  const rotator = node('rotator', { nodeRotatorParams: { rotatorType: 'random' } });
  const pairs = (nodes - 2) / 2;
  const landers = Array.from({ length: pairs }, (_, i) =>
    node('landerGroup', { nodePageGroupParams: { idPageGroup: landerGroups[i % landerGroups.length], accumulateUrlParams: true, additionalTokens: [] } }),
  );
  const offers = Array.from({ length: pairs }, (_, i) => node('offerGroup', { nodePageGroupParams: { idPageGroup: offerGroups[i % offerGroups.length] } }));
  const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown>) => ({
    idConnection: generateAssetId(),
    idSourceNode: from.idNode,
    idTargetNode: to.idNode,
    ...params,
  });
  return {
    idFunnel: generateAssetId(),
    idFunnelGroup,
    funnelName,
    nodes: [root, rotator, ...landers, ...offers],
    connections: [
      link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
      ...landers.map((lander) => link(rotator, lander, { connectionRotatorParams: { weight: 1 / pairs } })),
      ...landers.map((lander, i) => link(lander, offers[i], { connectionPageParams: { onActionNumber: 1 } })),
    ],
  };
}
