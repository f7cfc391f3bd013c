// A realistic funnel for tests and benchmarks, with every asset it names:
//
//   Root -> Split (rotator: 0.9 Device, 0.1 Landers B)
//   Device (condition "mobile": deviceType mobile and country DE/AT/CH; default -> Landers B)
//     mobile -> Score (logic, a 20-line script: premium | standard -> Landers A, default -> Landers B)
//   Landers A (2 landers, 70/30, accumulateUrlParams, token lp=a) -1-> Offers
//   Landers B (1 lander) -1-> Offers
//   Offers (1 offer, payout 2.5, offer source params sub1={hit} sub2={campaign}) -1 (conversion)-> Thanks (external URL)
import type { FunnelAssets, RoutingVisitor } from '../model';

/** A readable asset id: `rid('nRoot')` is `nRootZZZZZZZ`. */
export const rid = (name: string): string => name.padEnd(12, 'Z');

export const REALISTIC_IDS = {
  funnel: rid('funnel'),
  group: rid('group'),
  source: rid('trafficSrc'),
  offerSource: rid('offerSrc'),
  condition: rid('condMobile'),
  script: rid('scriptScore'),
  landersA: rid('pgLandersA'),
  landersB: rid('pgLandersB'),
  offers: rid('pgOffers'),
  landerA1: rid('pageA1'),
  landerA2: rid('pageA2'),
  landerB1: rid('pageB1'),
  offer1: rid('pageOffer1'),
  nodes: {
    root: rid('nRoot'),
    split: rid('nSplit'),
    device: rid('nDevice'),
    score: rid('nScore'),
    landersA: rid('nLandersA'),
    landersB: rid('nLandersB'),
    offers: rid('nOffers'),
    thanks: rid('nThanks'),
  },
} as const;

/** The Score node's script: 20 lines of scoring, answering premium, standard or default. */
export const REALISTIC_SCRIPT = `// Pick a lander flavour from market, device, campaign and time.
dach := oneOf(country, "DE", "AT", "CH")
ios := strings.HasPrefix(strings.ToLower(os), "ios")
campaign := strings.ToLower(trackingField("campaign"))
brand := strings.Contains(campaign, "brand")
evening := hour >= 18 && hour <= 23
if dach && brand {
	return "premium"
}
if dach && ios && evening {
	return "premium"
}
if brand || ios {
	return "standard"
}
if dach {
	return "standard"
}
if strings.HasPrefix(campaign, "test") {
	return "standard"
}
return "default"
`;

const node = (idNode: string, nodeName: string, nodeType: string, params: Record<string, unknown> = {}) => ({
  idNode,
  nodeName,
  nodeType,
  posX: 0.5,
  posY: 0.5,
  ...params,
});
const link = (name: string, from: string, to: string, params: Record<string, unknown> = {}) => ({
  idConnection: rid(`c${name}`),
  idSourceNode: from,
  idTargetNode: to,
  ...params,
});

/** The funnel and its assets (fresh objects on every call). */
export function realisticFunnelAssets(): FunnelAssets {
  const I = REALISTIC_IDS;
  const N = I.nodes;
  return {
    funnel: {
      idFunnel: I.funnel,
      idFunnelGroup: I.group,
      funnelName: 'Realistic funnel',
      status: 'active',
      nodes: [
        node(N.root, 'Root', 'root'),
        node(N.split, 'Split', 'rotator', { nodeRotatorParams: { rotatorType: 'random' } }),
        node(N.device, 'Device', 'condition', { nodeConditionParams: { idCondition: I.condition } }),
        node(N.score, 'Score', 'logic', { nodeLogicParams: { idLogicScript: I.script } }),
        node(N.landersA, 'Landers A', 'landerGroup', {
          nodePageGroupParams: { idPageGroup: I.landersA, accumulateUrlParams: true, additionalTokens: [{ key: 'lp', value: 'a' }] },
        }),
        node(N.landersB, 'Landers B', 'landerGroup', { nodePageGroupParams: { idPageGroup: I.landersB } }),
        node(N.offers, 'Offers', 'offerGroup', { nodePageGroupParams: { idPageGroup: I.offers } }),
        node(N.thanks, 'Thanks', 'externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks?v={visitor}' } }),
      ],
      connections: [
        link('RootSplit', N.root, N.split, { connectionRotatorParams: { weight: 1 } }),
        link('SplitDevice', N.split, N.device, { connectionRotatorParams: { weight: 0.9 } }),
        link('SplitB', N.split, N.landersB, { connectionRotatorParams: { weight: 0.1 } }),
        link('DeviceScore', N.device, N.score, { connectionLogicParams: { onRouteKeys: ['mobile'] } }),
        link('DeviceB', N.device, N.landersB, { connectionLogicParams: { onRouteKeys: ['default'] } }),
        link('ScoreA', N.score, N.landersA, { connectionLogicParams: { onRouteKeys: ['premium', 'standard'] } }),
        link('ScoreB', N.score, N.landersB, { connectionLogicParams: { onRouteKeys: ['default'] } }),
        link('AOffers', N.landersA, N.offers, { connectionPageParams: { onActionNumber: 1 } }),
        link('BOffers', N.landersB, N.offers, { connectionPageParams: { onActionNumber: 1 } }),
        link('OffersThanks', N.offers, N.thanks, { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
      ],
    } as unknown as FunnelAssets['funnel'],
    funnelGroup: { idFunnelGroup: I.group, funnelGroupName: 'Group', defaultCost: '' },
    pageGroups: [
      {
        idPageGroup: I.landersA,
        pageGroupName: 'Landers A',
        pageType: 'lander',
        rotation: 'random',
        pages: [
          { idPage: I.landerA1, weight: 70 },
          { idPage: I.landerA2, weight: 30 },
        ],
      },
      { idPageGroup: I.landersB, pageGroupName: 'Landers B', pageType: 'lander', rotation: 'random', pages: [{ idPage: I.landerB1, weight: 100 }] },
      { idPageGroup: I.offers, pageGroupName: 'Offers', pageType: 'offer', rotation: 'random', pages: [{ idPage: I.offer1, weight: 100 }] },
    ],
    pages: [
      {
        idPage: I.landerA1,
        pageName: 'Lander A1',
        pageType: 'lander',
        baseURL: 'https://lp.example.com/a1?src={traffic-source-id}&lp={lp}',
        redirectType: '307',
      },
      { idPage: I.landerA2, pageName: 'Lander A2', pageType: 'lander', baseURL: 'https://lp.example.com/a2?hit={hit}', redirectType: '307' },
      { idPage: I.landerB1, pageName: 'Lander B1', pageType: 'lander', baseURL: 'https://lp.example.com/b1', redirectType: '307' },
      {
        idPage: I.offer1,
        pageName: 'Offer 1',
        pageType: 'offer',
        baseURL: 'https://offers.example.net/go?o=1',
        redirectType: '307',
        offerParams: { idOfferSource: I.offerSource, payout: 2.5, payoutType: 'perConversion' },
      },
    ],
    conditions: [
      {
        idCondition: I.condition,
        conditionName: 'Mobile DACH',
        routes: [
          {
            idRoute: 'mobile',
            routeName: 'Mobile in DACH',
            ruleGroups: [
              {
                rules: [
                  { attribute: 'deviceType', operator: 'is', values: ['mobile'] },
                  { attribute: 'country', operator: 'is', values: ['DE', 'AT', 'CH'] },
                ],
              },
            ],
          },
        ],
      },
    ],
    logicScripts: [{ idLogicScript: I.script, logicScriptName: 'Score', code: REALISTIC_SCRIPT, routeKeys: ['premium', 'standard', 'default'] }],
    middlewareConfigs: [],
    webhookConfigs: [],
    visitorTags: [],
    aiNodeSettings: [],
    trafficSources: [
      {
        idTrafficSource: I.source,
        trafficSourceName: 'Ads network',
        defaultCost: '0.01',
        incomingCostModifier: 100,
        trackingFieldSlots: {
          campaign: { name: 'campaign', value: '{campaign}', previousName: '', status: 'active' },
          external: { name: 'clickid', value: '{clickid}', previousName: '', status: 'active' },
          c1: { name: 'zone', value: '{zone}', previousName: '', status: 'active' },
          c2: { name: 'old', value: '{old}', previousName: '', status: 'archived' },
        },
      },
    ],
    offerSources: [{ idOfferSource: I.offerSource, offerSourceName: 'Network', queryParams: { sub1: '{hit}', sub2: '{campaign}' }, querySeparator: '?' }],
  };
}

/** A German iPhone at 21:00 UTC (23:00 local), mobile. */
export function realisticVisitor(overrides: Partial<RoutingVisitor> = {}): RoutingVisitor {
  return {
    attributes: { country: 'DE', deviceType: 'mobile', os: 'iOS', browser: 'Safari', city: 'Berlin', utcOffsetHours: 2 },
    time: Date.UTC(2026, 10, 27, 21, 0, 0),
    params: { campaign: 'Brand-Spring', clickid: 'abc123', zone: '42', old: 'x', utm_source: 'ads' },
    ip: '203.0.113.7',
    ...overrides,
  };
}
