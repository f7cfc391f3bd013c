import { generateAssetId } from '@funnel/contracts';

type Body = Record<string, unknown>;

/** The bench's realistic funnel, saved through the API: what a visitor's link and redirect look like. */
export interface EdgeBenchFunnel {
  idFunnel: string;
  idTrafficSource: string;
  /** The entrance token: funnel id then traffic source id. */
  token: string;
  /** The lander pages the condition's default route reaches (the bench's visitor, from 127.0.0.1, has no country). */
  landers: { idPage: string; pageName: string; pageType: 'lander'; baseURL: string }[];
  /** Where a redirect of a default-route visitor goes: the start of every lander's URL. */
  landerUrlPrefix: string;
}

export function apiPoster(base: string, key: string) {
  return async (path: string, body: Body): Promise<void> => {
    const r = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
    if (r.status !== 200) throw new Error(`POST ${path} failed: ${r.status} ${await r.text()}`);
  };
}

/** The account of an API key's user: its login's access token names it (claim `acc`). */
export async function accountOf(base: string, email: string, password: string): Promise<string> {
  const r = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: email, password }),
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  const { tokens } = (await r.json()) as { tokens: { access_token: string } };
  const claims = JSON.parse(Buffer.from(tokens.access_token.split('.')[1], 'base64url').toString('utf8')) as { acc: string };
  return claims.acc;
}

/**
 * Saves through the API, as a user builds it: a traffic source with a tracking field and a cost, a
 * country condition, two lander groups of two pages each, and the funnel
 *   root -> rotator (0.75 : 0.25) -> condition (US: the US landers, default: the main landers)
 *                         -> the main landers
 * whose pages' URLs carry the hit, visitor and traffic source tokens.
 */
export async function seedEdgeFunnel(base: string, key: string): Promise<EdgeBenchFunnel> {
  const post = apiPoster(base, key);
  const id = () => generateAssetId();
  const idFunnelGroup = id();
  await post('/funnelgroup/save/', { idFunnelGroup, funnelGroupName: 'edge bench' });
  const idTrafficSource = id();
  await post('/trafficsource/save/', {
    idTrafficSource,
    trafficSourceName: 'edge bench source',
    defaultCost: '0.01',
    trackingFieldSlots: { c1: { name: 'zone', value: '{zone}' } },
  });
  const landerUrlPrefix = 'https://lp.example.com/';
  const page = (name: string) => ({
    idPage: id(),
    pageType: 'lander' as const,
    pageName: name,
    baseURL: `${landerUrlPrefix}${name.replace(/\W+/g, '-')}?h={hit}&v={visitor}&ts={traffic-source-id}`,
  });
  const landers = [page('main a'), page('main b')];
  const usLanders = [page('us a'), page('us b')];
  for (const p of [...landers, ...usLanders]) await post('/page/save/', p);
  const idMain = id();
  const idUs = id();
  await post('/pagegroup/save/', { idPageGroup: idMain, pageGroupName: 'main landers', pageType: 'lander', pages: landers.map((p) => ({ idPage: p.idPage })) });
  await post('/pagegroup/save/', { idPageGroup: idUs, pageGroupName: 'US landers', pageType: 'lander', pages: usLanders.map((p) => ({ idPage: p.idPage })) });
  const idCondition = id();
  await post('/condition/save/', {
    idCondition,
    conditionName: 'US visitors',
    routes: [{ idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US'] }] }] }],
  });
  const node = (nodeType: string, params: Body = {}) => ({ idNode: id(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
  const root = node('root');
  const rotator = node('rotator', { nodeRotatorParams: { rotatorType: 'random' } });
  const condition = node('condition', { nodeConditionParams: { idCondition } });
  const main = node('landerGroup', { nodePageGroupParams: { idPageGroup: idMain } });
  const us = node('landerGroup', { nodePageGroupParams: { idPageGroup: idUs } });
  const link = (from: Body, to: Body, params: Body) => ({ idConnection: id(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });
  const idFunnel = id();
  await post('/funnel/save/', {
    idFunnel,
    idFunnelGroup,
    funnelName: 'edge bench funnel',
    nodes: [root, rotator, condition, main, us],
    connections: [
      link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
      link(rotator, condition, { connectionRotatorParams: { weight: 0.75 } }),
      link(rotator, main, { connectionRotatorParams: { weight: 0.25 } }),
      link(condition, us, { connectionLogicParams: { onRouteKeys: ['us'] } }),
      link(condition, main, { connectionLogicParams: { onRouteKeys: ['default'] } }),
    ],
  });
  return { idFunnel, idTrafficSource, token: `${idFunnel}${idTrafficSource}`, landers, landerUrlPrefix };
}
