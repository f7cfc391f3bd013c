// External URL nodes: the walk ends with a redirect to the node's URL, its tokens replaced and the
// visitor id added.
import type { FunnelNode } from '@funnel/assets-domain';
import type { GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import * as redirectUrl from '../url/redirect-url';
import type { UrlTemplate } from '../url/redirect-url';
import type { Walk } from '../walk/walk';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { buildRedirectUrl, compileUrlTemplate } = redirectUrl;

export const externalUrlFamily: NodeFamily<UrlTemplate> = {
  serverSide: false,
  compile: (node: FunnelNode) => compileUrlTemplate(('nodeExternalUrlParams' in node && node.nodeExternalUrlParams?.url) || ''),
  run(node: GraphNode<UrlTemplate>, walk: Walk): NodeStep {
    const url = buildRedirectUrl(node.data, walk.tokens(node, '', undefined));
    walk.record(node, { kind: 'url', url });
    return walk.arrive({ type: 'url', idNode: node.idNode, url }, url);
  },
};
