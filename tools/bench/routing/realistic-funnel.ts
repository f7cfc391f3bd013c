// The realistic funnel of the routing bench: root -> rotator -> condition -> logic node (a 20-line
// script) -> lander groups -> offer group, as the records the API stores, and the same routing written
// by hand in plain JavaScript (the baseline).
import { generateAssetId } from '@funnel/contracts';
import type { FunnelRecord } from '@funnel/assets-domain';
import type { RoutingSession, WalkInput } from '@funnel/routing';
import { BenchAssets, HandWalk, actionSession, cumulativeShares, drawIndex, entranceSession, handUrl, hitIds, nextSession } from './hand-walk';

/** The logic node's script (20 lines): market, device, campaign, data buffer and evening hours. */
export const REALISTIC_SCRIPT = `// Route by campaign, market, device and the visitor's evening.
campaign := strings.ToLower(trackingField("campaign"))
mobile := oneOf(deviceType, "mobile", "tablet")
switch {
case strings.HasPrefix(campaign, "retarget"):
	return "retarget"
case oneOf(country, "US", "CA"):
	if mobile && timeInRange(1800, 600, -5) {
		return "na_evening_mobile"
	}
	return "na"
case oneOf(country, "DE", "AT", "CH"):
	if dataBuffer("plan") == "pro" {
		return "dach_pro"
	}
	return "dach"
case mobile:
	return "mobile"
}
return "default"
`;

const id = () => generateAssetId();

/** Every record of the realistic funnel, fresh ids each call (saved as-is over HTTP, or walked by the engine). */
export function realisticAssets(): BenchAssets {
  const idFunnelGroup = id();
  const offerSource = { idOfferSource: id(), offerSourceName: 'bench network', queryParams: {}, querySeparator: '?', postbackSubId: 'clickid' };
  const trafficSource = {
    idTrafficSource: id(),
    trafficSourceName: 'bench ads',
    defaultCost: '0.05',
    trackingFieldSlots: {
      campaign: { name: 'campaign', value: '{campaign_name}', status: 'active' },
      c1: { name: 'source', value: '{site}', status: 'active' },
    },
    postback: { postbackType: 'none', postbackCode: '' },
  };
  const lander = (name: string) => ({
    idPage: id(),
    pageType: 'lander',
    pageName: name,
    baseURL: `https://lp.example.com/${name}?hit={hit}&v={visitor}&n={current-node-id}&c={campaign}&plan={data-plan}&keep={unknown-token}`,
  });
  const offer = (name: string, payout: number) => ({
    idPage: id(),
    pageType: 'offer',
    pageName: name,
    baseURL: `https://offers.example.com/${name}?sub1={hit}&sub2={campaign}&sub3={trackingField.source}`,
    offerParams: { idOfferSource: offerSource.idOfferSource, payout, payoutType: 'perConversion' },
  });
  const landers = ['spring-na', 'spring-na-b', 'spring-dach', 'spring-dach-b', 'spring-world', 'spring-world-b', 'control'].map(lander);
  const offers = [offer('gadget', 12.5), offer('gadget-bundle', 30), offer('gadget-lite', 6)];
  const group = (name: string, pageType: string, pages: { idPage: string }[], weights: number[]) => ({
    idPageGroup: id(),
    pageGroupName: name,
    pageType,
    pages: pages.map(({ idPage }, i) => ({ idPage, weight: weights[i] })),
  });
  const pageGroups = [
    group('na landers', 'lander', landers.slice(0, 2), [50, 50]),
    group('dach landers', 'lander', landers.slice(2, 4), [70, 30]),
    group('world landers', 'lander', landers.slice(4, 6), [50, 50]),
    group('control lander', 'lander', landers.slice(6, 7), [100]),
    group('offers', 'offer', offers, [50, 30, 20]),
  ];
  const condition = {
    idCondition: id(),
    conditionName: 'bench bots and paid traffic',
    routes: [
      {
        idRoute: 'bots',
        routeName: 'Bots',
        ruleGroups: [
          { rules: [{ attribute: 'userAgent', operator: 'contains', values: ['bot', 'crawler', 'spider'] }] },
          { rules: [{ attribute: 'connectionType', operator: 'is', values: ['hosting'] }] },
        ],
      },
      {
        idRoute: 'paid',
        routeName: 'Paid traffic',
        ruleGroups: [{ rules: [{ attribute: 'trackingField', name: 'source', operator: 'isNot', values: [''] }] }],
      },
    ],
  };
  const logicScript = { idLogicScript: id(), logicScriptName: 'bench market routing', code: REALISTIC_SCRIPT };

  const node = (nodeType: string, nodeName: string, params: Record<string, unknown> = {}) => ({
    idNode: id(),
    nodeName,
    nodeType,
    posX: 0.5,
    posY: 0.5,
    ...params,
  });
  const pageNode = (nodeType: string, nodeName: string, idPageGroup: string) =>
    node(nodeType, nodeName, { nodePageGroupParams: { idPageGroup, accumulateUrlParams: false, additionalTokens: [] } });
  const root = node('root', 'traffic');
  const rotator = node('rotator', 'smart vs control', { nodeRotatorParams: { rotatorType: 'random' } });
  const conditionNode = node('condition', 'filter bots', { nodeConditionParams: { idCondition: condition.idCondition } });
  const safePage = node('externalUrl', 'safe page', { nodeExternalUrlParams: { url: 'https://www.example.com/?utm_source=bench' } });
  const logicNode = node('logic', 'market routing', { nodeLogicParams: { idLogicScript: logicScript.idLogicScript } });
  const [naGroup, dachGroup, worldGroup, controlGroup, offerGroup] = pageGroups;
  const naLanders = pageNode('landerGroup', 'NA landers', naGroup.idPageGroup);
  const dachLanders = pageNode('landerGroup', 'DACH landers', dachGroup.idPageGroup);
  const worldLanders = pageNode('landerGroup', 'world landers', worldGroup.idPageGroup);
  const controlLander = pageNode('landerGroup', 'control lander', controlGroup.idPageGroup);
  const offerNode = pageNode('offerGroup', 'offers', offerGroup.idPageGroup);
  const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown> = {}) => ({
    idConnection: id(),
    idSourceNode: from.idNode,
    idTargetNode: to.idNode,
    ...params,
  });
  const keys = (...onRouteKeys: string[]) => ({ connectionLogicParams: { onRouteKeys } });
  const action = (onActionNumber: number, isConversion?: boolean) => ({ connectionPageParams: { onActionNumber, ...(isConversion ? { isConversion } : {}) } });
  const funnel = {
    idFunnel: id(),
    idFunnelGroup,
    funnelName: 'bench realistic funnel',
    nodes: [root, rotator, conditionNode, safePage, logicNode, naLanders, dachLanders, worldLanders, controlLander, offerNode],
    connections: [
      link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
      link(rotator, conditionNode, { connectionRotatorParams: { weight: 0.8 } }),
      link(rotator, controlLander, { connectionRotatorParams: { weight: 0.2 } }),
      link(conditionNode, safePage, keys('bots')),
      link(conditionNode, logicNode, keys('paid')),
      link(conditionNode, worldLanders, keys('default')),
      link(logicNode, naLanders, keys('na', 'na_evening_mobile')),
      link(logicNode, dachLanders, keys('dach', 'dach_pro')),
      link(logicNode, worldLanders, keys('retarget', 'mobile', 'default')),
      ...[naLanders, dachLanders, worldLanders, controlLander].map((lander) => link(lander, offerNode, action(1))),
      link(offerNode, safePage, action(1, true)),
    ],
  } as unknown as FunnelRecord;
  return {
    funnel,
    funnelGroup: { idFunnelGroup, funnelGroupName: 'bench realistic', trackingUrlParams: {}, defaultCost: '' },
    pageGroups,
    pages: [...landers, ...offers],
    conditions: [condition],
    logicScripts: [logicScript],
    middlewareConfigs: [],
    webhookConfigs: [],
    visitorTags: [],
    aiNodeSettings: [],
    trafficSources: [trafficSource],
    offerSources: [offerSource],
  };
}

/**
 * The realistic funnel's routing written by hand for these records: the same draws (rotator, then the
 * lander group's page; on the action, the offer group's page), the condition's rules, the script as
 * plain JavaScript, the same hits and the same URL with its tokens replaced.
 */
export function handWrittenRealistic(assets: BenchAssets): HandWalk {
  const f = assets.funnel;
  const nodeNamed = (name: string) => f.nodes.find((n) => n.nodeName === name)!;
  const [root, rotator, condition, safe, logic] = ['traffic', 'smart vs control', 'filter bots', 'safe page', 'market routing'].map(nodeNamed);
  const [na, dach, world, control, offers] = ['NA landers', 'DACH landers', 'world landers', 'control lander', 'offers'].map(nodeNamed);
  const source = assets.trafficSources[0] as { idTrafficSource: string; defaultCost: string };
  /** The traffic source's tracking fields: URL parameter (and token) name -> slot. */
  const FIELDS: Record<string, string> = { campaign: 'campaign', source: 'c1' };
  const pagesOf = (node: { idNode: string }) => {
    const idPageGroup = (node as unknown as { nodePageGroupParams: { idPageGroup: string } }).nodePageGroupParams.idPageGroup;
    const group = assets.pageGroups.find((g) => g.idPageGroup === idPageGroup) as { pages: { idPage: string; weight: number }[] };
    const pages = group.pages.map(({ idPage }) => ({ idPage, url: handUrl(assets.pages.find((p) => p.idPage === idPage)!.baseURL, FIELDS) }));
    return { pages, cumulative: cumulativeShares(group.pages.map(({ weight }) => weight)) };
  };
  const landerPages = new Map([na, dach, world, control].map((node) => [node.idNode, pagesOf(node)]));
  const offerPages = pagesOf(offers);
  const safeUrl = handUrl((safe as unknown as { nodeExternalUrlParams: { url: string } }).nodeExternalUrlParams.url, FIELDS);
  const rotatorShares = cumulativeShares([0.8, 0.2]);
  const MOBILE = new Set(['mobile', 'tablet']);

  /** The script, by hand. */
  const market = (input: WalkInput, session: RoutingSession): string => {
    const a = input.visitor.attributes;
    const campaign = (session.trackingFields.campaign ?? '').toLowerCase();
    if (campaign.startsWith('retarget')) return 'retarget';
    const mobile = MOBILE.has(a.deviceType as string);
    switch (a.country) {
      case 'US':
      case 'CA': {
        const minute = (((Math.floor(input.visitor.time / 60_000) - 300) % 1440) + 1440) % 1440;
        if (mobile && (minute >= 1080 || minute < 360)) return 'na_evening_mobile';
        return 'na';
      }
      case 'DE':
      case 'AT':
      case 'CH':
        return session.urlBuffer.plan === 'pro' ? 'dach_pro' : 'dach';
    }
    return mobile ? 'mobile' : 'default';
  };

  return (input) => {
    if ('entrance' in input.step) {
      const session = entranceSession(input, f, source, FIELDS);
      const visited = [root.idNode, rotator.idNode];
      input.random(); // the root's draw (one connection)
      let target: { idNode: string };
      if (drawIndex(rotatorShares, input.random) === 1) target = control;
      else {
        visited.push(condition.idNode);
        const ua = (input.visitor.attributes.userAgent as string | undefined) ?? '';
        const bot = ua.includes('bot') || ua.includes('crawler') || ua.includes('spider') || input.visitor.attributes.connectionType === 'hosting';
        if (bot) {
          visited.push(safe.idNode);
          const hits = hitIds(input.ids, visited.length);
          const url = safeUrl(hits[hits.length - 1], session, safe.idNode);
          return { idNode: safe.idNode, idPage: '', url, hits, session: nextSession(session, safe.idNode, '', hits) };
        }
        if (session.trackingFields.c1 === undefined || session.trackingFields.c1 === '') target = world;
        else {
          visited.push(logic.idNode);
          const key = market(input, session);
          target = key === 'na' || key === 'na_evening_mobile' ? na : key === 'dach' || key === 'dach_pro' ? dach : world;
        }
      }
      visited.push(target.idNode);
      const { pages, cumulative } = landerPages.get(target.idNode)!;
      const page = pages[drawIndex(cumulative, input.random)];
      const hits = hitIds(input.ids, visited.length);
      const url = page.url(hits[hits.length - 1], session, target.idNode);
      return { idNode: target.idNode, idPage: page.idPage, url, hits, session: nextSession(session, target.idNode, page.idPage, hits) };
    }
    const session = actionSession(input);
    if (input.step.action !== 1 || !landerPages.has(session.currentNode)) throw new Error('the hand-written walk knows action 1 from a lander only');
    const page = offerPages.pages[drawIndex(offerPages.cumulative, input.random)];
    const hits = hitIds(input.ids, 1);
    const url = page.url(hits[0], session, offers.idNode);
    return { idNode: offers.idNode, idPage: page.idPage, url, hits, session: nextSession(session, offers.idNode, page.idPage, hits) };
  };
}
