import { generateAssetId } from '@funnel/contracts';
import { aLargeFunnel } from '@funnel/assets-domain';
import type { DatasetAssets } from './hits-sql';

/** What the bench account holds: 30 traffic sources, 5 funnel groups, 50 funnels of 20 nodes, 100 landers, 200 offers of 10 offer sources, 5 visitor tags. */
export const ASSET_COUNTS = { trafficSources: 30, funnelGroups: 5, funnels: 50, funnelNodes: 20, landers: 100, offers: 200, offerSources: 10, visitorTags: 5 };
/** The tracking-field slots every bench traffic source names (and the hits fill). */
export const FILLED_SLOTS: readonly string[] = ['campaign', 'external', ...Array.from({ length: 10 }, (_, i) => `c${i + 1}`)];

async function save(base: string, key: string, path: string, body: Record<string, unknown>): Promise<void> {
  const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  if (r.status !== 200) throw new Error(`seeding ${path} failed: ${r.status} ${await r.text()}`);
}

/** Saves `count` assets made by `body(id, n)`, ten requests at a time; answers their ids. */
async function saveMany(base: string, key: string, path: string, count: number, body: (id: string, n: number) => Record<string, unknown>): Promise<string[]> {
  const ids = Array.from({ length: count }, () => generateAssetId());
  for (let i = 0; i < count; i += 10) await Promise.all(ids.slice(i, i + 10).map((id, n) => save(base, key, path, body(id, i + n))));
  return ids;
}

/**
 * Saves the assets the generated hits name, in the account of `key`, so reports resolve their names
 * as they would for a buyer's own assets. Traffic sources name their tracking-field slots (a
 * report limited to one source labels them so).
 */
export async function seedAssets(base: string, key: string): Promise<DatasetAssets> {
  const slots = Object.fromEntries(
    FILLED_SLOTS.map((slot, n) => [
      slot,
      { name: n < 2 ? slot : `zone${n - 1}`, value: `{${n < 2 ? slot : `zone${n - 1}`}}`, previousName: '', status: 'active' },
    ]),
  );
  const trafficSources = await saveMany(base, key, '/trafficsource/save/', ASSET_COUNTS.trafficSources, (idTrafficSource, n) => ({
    idTrafficSource,
    trafficSourceName: `bench source ${n}`,
    trackingFieldSlots: slots,
  }));
  const funnelGroups = await saveMany(base, key, '/funnelgroup/save/', ASSET_COUNTS.funnelGroups, (idFunnelGroup, n) => ({
    idFunnelGroup,
    funnelGroupName: `bench group ${n}`,
  }));
  const pageGroups = async (pageType: 'lander' | 'offer') =>
    saveMany(base, key, '/pagegroup/save/', 9, (idPageGroup, n) => ({ idPageGroup, pageGroupName: `bench ${pageType} group ${n}`, pageType, pages: [] }));
  const [landerGroups, offerGroups] = [await pageGroups('lander'), await pageGroups('offer')];
  const funnels: DatasetAssets['funnels'] = [];
  for (let n = 0; n < ASSET_COUNTS.funnels; n++) {
    const idFunnelGroup = funnelGroups[n % funnelGroups.length];
    const funnel = aLargeFunnel({ idFunnelGroup, funnelName: `bench funnel ${n}`, nodes: ASSET_COUNTS.funnelNodes, landerGroups, offerGroups });
    await save(base, key, '/funnel/save/', funnel);
    const nodes = funnel.nodes as { idNode: string; nodeType: string }[];
    const of = (type: string) => nodes.filter((node) => node.nodeType === type).map((node) => node.idNode);
    funnels.push({ idFunnel: funnel.idFunnel as string, idFunnelGroup, rotator: of('rotator')[0], landers: of('landerGroup'), offers: of('offerGroup') });
  }
  const landers = await saveMany(base, key, '/page/save/', ASSET_COUNTS.landers, (idPage, n) => ({
    idPage,
    pageType: 'lander',
    pageName: `bench lander ${n}`,
    baseURL: `https://lp.example.com/${n}`,
  }));
  const offerSources = await saveMany(base, key, '/offersource/save/', ASSET_COUNTS.offerSources, (idOfferSource, n) => ({
    idOfferSource,
    offerSourceName: `bench network ${n}`,
  }));
  const offerIds = await saveMany(base, key, '/page/save/', ASSET_COUNTS.offers, (idPage, n) => ({
    idPage,
    pageType: 'offer',
    pageName: `bench offer ${n}`,
    baseURL: `https://offer.example.com/${n}`,
    offerParams: { idOfferSource: offerSources[n % offerSources.length], payout: 10 },
  }));
  const visitorTags = await saveMany(base, key, '/visitortag/save/', ASSET_COUNTS.visitorTags, (idTag, n) => ({
    idTag,
    tagName: `bench tag ${n}`,
    color: 'red',
  }));
  return {
    trafficSources,
    funnelGroups,
    funnels,
    landers,
    offers: offerIds.map((idPage, n) => ({ idPage, idOfferSource: offerSources[n % offerSources.length] })),
    visitorTags,
  };
}
