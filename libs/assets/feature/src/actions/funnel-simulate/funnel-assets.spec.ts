import { generateAssetId } from '@funnel/contracts';
import type { AssetRecord, FunnelRecord } from '@funnel/assets-domain';
import { loadFunnelAssets } from './funnel-assets';

const id = () => generateAssetId();
const rec = (fields: Record<string, unknown>) => ({ status: 'active', ...fields }) as AssetRecord;

/** A finder over records by kind, recording what it was asked. */
function finderOf(records: Record<string, AssetRecord[]>, idFields: Record<string, string>) {
  const asked: [string, string[]][] = [];
  const find = async (kind: string, ids: readonly string[]) => {
    asked.push([kind, [...ids]]);
    return (records[kind] ?? []).filter((r) => ids.includes(String(r[idFields[kind]])));
  };
  return { find, asked };
}

describe('loading what a funnel walk touches', () => {
  const idFunnel = id();
  const idFunnelGroup = id();
  const offerSource = rec({ idOfferSource: id(), offerSourceName: 'Network' });
  const landerPage = rec({ idPage: id(), pageName: 'Quiz', pageType: 'lander' });
  const offerPage = rec({ idPage: id(), pageName: 'Sweeps', pageType: 'offer', offerParams: { idOfferSource: offerSource.idOfferSource } });
  const landers = rec({ idPageGroup: id(), pageType: 'lander', restrictToFunnelId: idFunnel, pages: [{ idPage: landerPage.idPage }] });
  const offers = rec({ idPageGroup: id(), pageType: 'offer', restrictToFunnelId: '', pages: [{ idPage: offerPage.idPage }] });
  const wrongType = rec({ idPageGroup: id(), pageType: 'lander', restrictToFunnelId: '', pages: [] });
  const foreignCondition = rec({ idCondition: id(), restrictToFunnelId: id(), routes: [] });
  const group = rec({ idFunnelGroup, funnelGroupName: 'Spring' });
  const source = rec({ idTrafficSource: id(), trafficSourceName: 'Push' });
  const node = (nodeType: string, params: Record<string, unknown>) => ({ idNode: id(), nodeName: nodeType, nodeType, posX: 0, posY: 0, ...params });
  const funnel = {
    idFunnel,
    idFunnelGroup,
    funnelName: 'Spring sale',
    nodes: [
      node('root', {}),
      node('landerGroup', { nodePageGroupParams: { idPageGroup: landers.idPageGroup } }),
      node('offerGroup', { nodePageGroupParams: { idPageGroup: offers.idPageGroup } }),
      // An offer group naming a lander group: not of its page type, so not used.
      node('offerGroup', { nodePageGroupParams: { idPageGroup: wrongType.idPageGroup } }),
      node('condition', { nodeConditionParams: { idCondition: foreignCondition.idCondition } }),
    ],
    connections: [],
  } as unknown as FunnelRecord;
  const idFields = {
    funnelgroup: 'idFunnelGroup',
    pagegroup: 'idPageGroup',
    page: 'idPage',
    offersource: 'idOfferSource',
    condition: 'idCondition',
    trafficsource: 'idTrafficSource',
  };
  const records = {
    funnelgroup: [group],
    pagegroup: [landers, offers, wrongType],
    page: [landerPage, offerPage],
    offersource: [offerSource],
    condition: [foreignCondition],
    trafficsource: [source],
  };

  it('reads the funnel group, the named assets, the entrance traffic sources, then the pages of the page groups and their offer sources', async () => {
    const { find } = finderOf(records, idFields);
    const assets = await loadFunnelAssets(funnel, [source.idTrafficSource as string], find);
    expect(assets.funnel).toBe(funnel);
    expect(assets.funnelGroup).toEqual(group);
    expect(assets.trafficSources).toEqual([source]);
    expect(assets.pages).toEqual([landerPage, offerPage]);
    expect(assets.offerSources).toEqual([offerSource]);
    expect(assets.logicScripts).toEqual([]);
  });

  it('leaves out what the funnel may not use: a page group of the wrong page type, a condition local to another funnel', async () => {
    const { find } = finderOf(records, idFields);
    const assets = await loadFunnelAssets(funnel, [], find);
    expect(assets.pageGroups).toEqual([landers, offers]);
    expect(assets.conditions).toEqual([]);
  });

  it('leaves out assets that are not found, asking for each id once', async () => {
    const { find, asked } = finderOf({}, idFields);
    const assets = await loadFunnelAssets(funnel, [], find);
    expect(assets.pageGroups).toEqual([]);
    expect(assets.funnelGroup).toBeUndefined();
    const pageGroupAsk = asked.find(([kind]) => kind === 'pagegroup');
    expect(pageGroupAsk?.[1].sort()).toEqual([landers.idPageGroup, offers.idPageGroup, wrongType.idPageGroup].sort());
  });
});
