import { generateAssetId } from '@funnel/contracts';

/** Funnel size of the funnel benchmarks: the 200 nodes (a root, a rotator, 99 lander and 99 offer nodes). */
export const BENCH_FUNNEL_NODES = 200;
const PAGE_GROUPS_PER_TYPE = 10;

async function post(base: string, key: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`seeding ${path} failed: ${r.status} ${await r.text()}`);
}

/**
 * Seeds a funnel group and 10 lander and 10 offer page groups, and answers a 200-node funnel naming
 * them (every lander node leads to an offer node): its save checks the group and 20 page groups
 * (198 references, each distinct asset read once) besides the graph rules.
 */
export async function seedBenchFunnel(base: string, key: string): Promise<Record<string, unknown>> {
  const idFunnelGroup = generateAssetId();
  await post(base, key, '/funnelgroup/save/', { idFunnelGroup, funnelGroupName: 'bench' });
  const groups = { lander: [] as string[], offer: [] as string[] };
  for (const pageType of ['lander', 'offer'] as const) {
    for (let i = 0; i < PAGE_GROUPS_PER_TYPE; i++) {
      const idPageGroup = generateAssetId();
      await post(base, key, '/pagegroup/save/', { idPageGroup, pageGroupName: `bench ${pageType} ${i}`, pageType, pages: [] });
      groups[pageType].push(idPageGroup);
    }
  }
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
  const pairs = (BENCH_FUNNEL_NODES - 2) / 2;
  const landers = Array.from({ length: pairs }, (_, i) =>
    node('landerGroup', { nodePageGroupParams: { idPageGroup: groups.lander[i % PAGE_GROUPS_PER_TYPE], accumulateUrlParams: true, additionalTokens: [] } }),
  );
  const offers = Array.from({ length: pairs }, (_, i) => node('offerGroup', { nodePageGroupParams: { idPageGroup: groups.offer[i % PAGE_GROUPS_PER_TYPE] } }));
  const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown>) => ({
    idConnection: generateAssetId(),
    idSourceNode: from.idNode,
    idTargetNode: to.idNode,
    ...params,
  });
  return {
    idFunnel: generateAssetId(),
    idFunnelGroup,
    funnelName: 'bench funnel',
    nodes: [root, rotator, ...landers, ...offers],
    connections: [
      link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
      ...landers.map((lander) => link(rotator, lander, { connectionRotatorParams: { weight: 1 / pairs } })),
      ...landers.map((lander, i) => link(lander, offers[i], { connectionPageParams: { onActionNumber: 1 } })),
    ],
  };
}
