// Small hand-made funnels for tests: nodes and connections by short names, assets as given.
import type { FunnelAssets } from '../model';
import { rid } from './realistic-funnel';

export interface TinyNode {
  name: string;
  type: string;
  params?: Record<string, unknown>;
}

export interface TinyLink {
  from: string;
  to: string;
  params?: Record<string, unknown>;
}

/** The node id of a tiny funnel's node name. */
export const nid = (name: string): string => rid(`n${name}`);
/** The connection id of a tiny funnel's link, by its position. */
export const cid = (index: number): string => rid(`c${index}`);

/** A funnel of the nodes (ids `nid(name)`) and links (ids `cid(i)`), with the assets given (lists default to empty). */
export function tinyFunnel(
  nodes: TinyNode[],
  links: TinyLink[],
  assets: Partial<Omit<FunnelAssets, 'funnel'>> = {},
  funnel: Record<string, unknown> = {},
): FunnelAssets {
  return {
    funnel: {
      idFunnel: rid('funnel'),
      idFunnelGroup: rid('group'),
      funnelName: 'Tiny',
      nodes: nodes.map(({ name, type, params }) => ({ idNode: nid(name), nodeName: name, nodeType: type, posX: 0, posY: 0, ...params })),
      connections: links.map(({ from, to, params }, i) => ({ idConnection: cid(i), idSourceNode: nid(from), idTargetNode: nid(to), ...params })),
      ...funnel,
    } as unknown as FunnelAssets['funnel'],
    pageGroups: [],
    pages: [],
    conditions: [],
    logicScripts: [],
    middlewareConfigs: [],
    webhookConfigs: [],
    visitorTags: [],
    aiNodeSettings: [],
    trafficSources: [{ idTrafficSource: rid('source'), trafficSourceName: 'Source', trackingFieldSlots: {} }],
    offerSources: [],
    ...assets,
  };
}

/** A lander page group of one page (`rid('pg'+name)`, page `rid('p'+name)`) at the URL. */
export function landerGroup(name: string, baseURL = `https://${name.toLowerCase()}.example.com/`): Pick<FunnelAssets, 'pageGroups' | 'pages'> {
  return {
    pageGroups: [{ idPageGroup: rid(`pg${name}`), pageType: 'lander', pages: [{ idPage: rid(`p${name}`), weight: 100 }] }],
    pages: [{ idPage: rid(`p${name}`), pageType: 'lander', pageName: name, baseURL }],
  };
}
