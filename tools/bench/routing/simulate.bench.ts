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

/** A simulate body per call: the next bench visitor in turn, entering then taking action 1, with its own seed. */
export function simulateBodies(assets: BenchAssets): () => string {
  const idTrafficSource = assets.trafficSources[0].idTrafficSource;
  const fieldNames = new Set(Object.values((assets.trafficSources[0].trackingFieldSlots ?? {}) as Record<string, { name: string }>).map((f) => f.name));
  const bodies = BENCH_VISITORS.map(({ entrance }) => {
    const params = entrance.params ?? {};
    const trackingFields = Object.fromEntries(Object.entries(params).filter(([name]) => fieldNames.has(name)));
    const dataBuffer = Object.fromEntries(Object.entries(params).filter(([name]) => !fieldNames.has(name)));
    return {
      idFunnel: assets.funnel.idFunnel,
      visitor: { visitor: entrance.attributes, trackingFields, dataBuffer, time: new Date(entrance.time).toISOString(), ip: entrance.ip },
      steps: [{ entrance: { idTrafficSource } }, { action: 1 }],
    };
  });
  let n = 0;
  return () => {
    const body = bodies[n % VISITOR_COUNT];
    return JSON.stringify({ ...body, seed: n++ });
  };
}
