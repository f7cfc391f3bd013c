// The 200-node funnel of the funnel bench (aLargeFunnel: root -> rotator over 99 lander nodes, each
// leading on action 1 to its offer node), with 10 lander and 10 offer page groups of two pages each,
// and its routing written by hand in plain JavaScript (the baseline).
import { generateAssetId } from '@funnel/contracts';
import { aLargeFunnel, type FunnelRecord } from '@funnel/assets-domain';
import { BENCH_FUNNEL_NODES } from '../funnel.bench';
import { BenchAssets, HandWalk, actionSession, cumulativeShares, drawIndex, entranceSession, handUrl, hitIds, nextSession } from './hand-walk';

const GROUPS_PER_TYPE = 10;
const FIELDS: Record<string, string> = { campaign: 'campaign' };

export function largeAssets(): BenchAssets {
  const offerSource = { idOfferSource: generateAssetId(), offerSourceName: 'bench network', queryParams: {}, querySeparator: '?' };
  const trafficSource = {
    idTrafficSource: generateAssetId(),
    trafficSourceName: 'bench ads',
    defaultCost: '0.02',
    trackingFieldSlots: { campaign: { name: 'campaign', value: '{campaign_name}', status: 'active' } },
    postback: { postbackType: 'none', postbackCode: '' },
  };
  const pages: BenchAssets['pages'] = [];
  const pageGroups: BenchAssets['pageGroups'] = [];
  for (const pageType of ['lander', 'offer']) {
    for (let g = 0; g < GROUPS_PER_TYPE; g++) {
      const groupPages = [0, 1].map((p) => ({
        idPage: generateAssetId(),
        pageType,
        pageName: `bench ${pageType} ${g}.${p}`,
        baseURL: `https://${pageType}.example.com/${g}/${p}?hit={hit}&v={visitor}&c={campaign}`,
        ...(pageType === 'offer' ? { offerParams: { idOfferSource: offerSource.idOfferSource, payout: 10, payoutType: 'perConversion' } } : {}),
      }));
      pages.push(...groupPages);
      pageGroups.push({
        idPageGroup: generateAssetId(),
        pageGroupName: `bench ${pageType} ${g}`,
        pageType,
        pages: groupPages.map(({ idPage }, p) => ({ idPage, weight: p === 0 ? 60 : 40 })),
      });
    }
  }
  const idFunnelGroup = generateAssetId();
  const funnel = aLargeFunnel({
    idFunnelGroup,
    funnelName: 'bench large funnel',
    nodes: BENCH_FUNNEL_NODES,
    landerGroups: pageGroups.filter((g) => g.pageType === 'lander').map((g) => g.idPageGroup),
    offerGroups: pageGroups.filter((g) => g.pageType === 'offer').map((g) => g.idPageGroup),
  }) as unknown as FunnelRecord;
  return {
    funnel,
    funnelGroup: { idFunnelGroup, funnelGroupName: 'bench large', trackingUrlParams: {}, defaultCost: '' },
    pageGroups,
    pages,
    conditions: [],
    logicScripts: [],
    middlewareConfigs: [],
    webhookConfigs: [],
    visitorTags: [],
    aiNodeSettings: [],
    trafficSources: [trafficSource],
    offerSources: [offerSource],
  };
}

/** The large funnel's routing by hand: the rotator's draw over its 99 landers, the page draws, action 1 to the lander's offer. */
export function handWrittenLarge(assets: BenchAssets): HandWalk {
  const f = assets.funnel;
  const rotator = f.nodes.find((n) => n.nodeType === 'rotator')!;
  const pagesOf = (idNode: string) => {
    const node = f.nodes.find((n) => n.idNode === idNode) as unknown as { nodePageGroupParams: { idPageGroup: string; accumulateUrlParams?: boolean } };
    const group = assets.pageGroups.find((g) => g.idPageGroup === node.nodePageGroupParams.idPageGroup)!;
    // A lander node accumulates the visitor's URL parameters (aLargeFunnel): those its page's URL does not name.
    const passOn = node.nodePageGroupParams.accumulateUrlParams === true;
    const pages = group.pages.map(({ idPage }) => {
      const page = assets.pages.find((p) => p.idPage === idPage)!;
      return { idPage, url: handUrl(page.baseURL, FIELDS, passOn) };
    });
    return { idNode, pages, cumulative: cumulativeShares(group.pages.map(({ weight }) => weight)) };
  };
  const fromRotator = f.connections.filter((c) => c.idSourceNode === rotator.idNode);
  const landers = fromRotator.map((c) => pagesOf(c.idTargetNode));
  const landerCumulative = cumulativeShares(fromRotator.map((c) => c.connectionRotatorParams!.weight));
  const offerOf = new Map(f.connections.filter((c) => c.connectionPageParams?.onActionNumber === 1).map((c) => [c.idSourceNode, pagesOf(c.idTargetNode)]));
  const source = assets.trafficSources[0];

  return (input) => {
    let session = input.session;
    let target;
    let visited;
    if ('entrance' in input.step) {
      session = entranceSession(input, f, source, FIELDS);
      input.random(); // the root's draw (one connection)
      target = landers[drawIndex(landerCumulative, input.random)];
      visited = 3; // root, rotator, lander
    } else {
      session = actionSession(input);
      target = input.step.action === 1 ? offerOf.get(session.currentNode) : undefined;
      if (!target) throw new Error('the hand-written walk knows action 1 from a lander only');
      visited = 1;
    }
    const page = target.pages[drawIndex(target.cumulative, input.random)];
    const hits = hitIds(input.ids, visited);
    const url = page.url(hits[hits.length - 1], session!, target.idNode);
    return { idNode: target.idNode, idPage: page.idPage, url, hits, session: nextSession(session!, target.idNode, page.idPage, hits) };
  };
}
