import { generateAssetId } from '@funnel/contracts';
import { aLargeFunnel } from '@funnel/assets-domain';

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
  return aLargeFunnel({ idFunnelGroup, funnelName: 'bench funnel', nodes: BENCH_FUNNEL_NODES, landerGroups: groups.lander, offerGroups: groups.offer });
}
