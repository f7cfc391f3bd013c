// `POST /funnel/simulate/` over HTTP: the realistic funnel saved through the API, and request bodies
// walking one of the bench visitors (an entrance, then action 1 from the lander) with a fresh seed.
import type { BenchAssets } from './hand-walk';
import { BENCH_VISITORS, VISITOR_COUNT } from './visitors';

async function save(base: string, key: string, path: string, body: unknown): Promise<void> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`seeding ${path} failed: ${r.status} ${await r.text()}`);
}

/** Saves every record of `assets` (the assets before the funnel that names them). */
export async function seedFunnelAssets(base: string, key: string, assets: BenchAssets): Promise<void> {
  for (const record of assets.offerSources) await save(base, key, '/offersource/save/', record);
  for (const record of assets.trafficSources) await save(base, key, '/trafficsource/save/', record);
  await save(base, key, '/funnelgroup/save/', assets.funnelGroup);
  for (const record of assets.pages) await save(base, key, '/page/save/', record);
  for (const record of assets.pageGroups) await save(base, key, '/pagegroup/save/', record);
  for (const record of assets.conditions) await save(base, key, '/condition/save/', record);
  for (const record of assets.logicScripts) await save(base, key, '/logicscript/save/', record);
  await save(base, key, '/funnel/save/', assets.funnel);
}

/**
 * A simulate body per call: the next bench visitor in turn, arriving by an entrance link that carries
 * its URL parameters, then taking action 1, each with its own seed.
 */
export function simulateBodies(assets: BenchAssets): () => string {
  const idTrafficSource = assets.trafficSources[0].idTrafficSource;
  const bodies = BENCH_VISITORS.map(({ entrance }) => ({
    idFunnel: assets.funnel.idFunnel,
    visitor: { visitor: entrance.attributes, time: new Date(entrance.time).toISOString(), ip: entrance.ip },
    steps: [{ entrance: { idTrafficSource, url: `https://track.example.com/fts/bench?${new URLSearchParams(entrance.params)}` } }, { action: 1 }],
  }));
  let n = 0;
  return () => {
    const body = bodies[n % VISITOR_COUNT];
    return JSON.stringify({ ...body, seed: n++ });
  };
}

/** Throws unless a simulate answer walked the first bench visitor to a lander, then to an offer (the body of simulateBodies' first call). */
export function checkSimulateAnswer(answer: unknown): void {
  const steps = (answer as { steps?: { url?: string | null }[] }).steps ?? [];
  const urls = steps.map((step) => step.url ?? '');
  if (urls.length !== 2 || !urls[0].startsWith('https://lp.example.com/') || !urls[1].startsWith('https://offers.example.com/')) {
    throw new Error(`simulate did not walk the visitor to a lander, then an offer: ${JSON.stringify(answer).slice(0, 2000)}`);
  }
}
