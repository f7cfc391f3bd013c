// compileFunnel: indexes a funnel and its assets once, so that each walk only follows pointers.
import type { FunnelConnection, FunnelNode } from '@funnel/assets-domain';
import type { FunnelAssets, RoutingWarning } from '../model';
import { NODE_FAMILIES } from '../nodes';
import { type OfferQuery, compileOfferQuery } from '../url/redirect-url';
import { AssetIndex } from './asset-index';
import { type CompileContext, CompiledGraph, type CompiledEdge, type GraphNode } from './graph';
import { text } from './records';
import { funnelStaticWarnings } from './static-warnings';
import { compileTrafficSources } from './traffic-sources';

export function compileFunnel(assets: FunnelAssets): CompiledGraph {
  const funnel = assets.funnel;
  const index = new AssetIndex(assets);
  const warnings = funnelStaticWarnings(assets, index);
  const byNode = new Map<string, RoutingWarning[]>();
  for (const warning of warnings) if (warning.idNode !== undefined) byNode.set(warning.idNode, [...(byNode.get(warning.idNode) ?? []), warning]);

  const nodeList: FunnelNode[] = Array.isArray(funnel.nodes) ? funnel.nodes : [];
  const known = new Set(nodeList.map((node) => node.idNode));
  const outOf = new Map<string, CompiledEdge[]>();
  for (const connection of (Array.isArray(funnel.connections) ? funnel.connections : []) as FunnelConnection[]) {
    if (!known.has(connection.idSourceNode) || !known.has(connection.idTargetNode)) continue;
    const edge: CompiledEdge = { idConnection: connection.idConnection, idTargetNode: connection.idTargetNode, connection };
    const out = outOf.get(connection.idSourceNode);
    if (out) out.push(edge);
    else outOf.set(connection.idSourceNode, [edge]);
  }

  const offerQueries = new Map<string, OfferQuery | null>();
  let current: FunnelNode | undefined;
  const context: CompileContext = {
    assets,
    index,
    offerQuery(idOfferSource) {
      if (!offerQueries.has(idOfferSource)) {
        const source = index.get('offersource', idOfferSource);
        offerQueries.set(idOfferSource, source === undefined ? null : compileOfferQuery(source.queryParams, source.querySeparator));
      }
      return offerQueries.get(idOfferSource)!;
    },
    warn(code, message) {
      const idNode = current?.idNode;
      const warning: RoutingWarning = idNode === undefined ? { code, message } : { code, idNode, message: `node ${idNode} (${current!.nodeName}): ${message}` };
      warnings.push(warning);
      if (idNode !== undefined) byNode.set(idNode, [...(byNode.get(idNode) ?? []), warning]);
    },
  };

  const compiled: { node: FunnelNode; out: CompiledEdge[]; data: unknown }[] = [];
  for (const node of nodeList) {
    const family = NODE_FAMILIES[node.nodeType];
    if (family === undefined) continue;
    current = node;
    const out = outOf.get(node.idNode) ?? [];
    compiled.push({ node, out, data: family.compile(node, out, context) });
  }
  current = undefined;

  const nodes = new Map<string, GraphNode>();
  for (const { node, out, data } of compiled) {
    nodes.set(node.idNode, {
      idNode: node.idNode,
      nodeName: node.nodeName,
      nodeType: node.nodeType,
      node,
      out,
      family: NODE_FAMILIES[node.nodeType],
      data,
      warnings: byNode.get(node.idNode) ?? [],
    });
  }
  const root = nodeList.find((node) => node.nodeType === 'root');
  return new CompiledGraph(
    funnel.idFunnel,
    funnel.funnelName,
    funnel.idFunnelGroup,
    root?.idNode ?? '',
    Object.freeze(warnings),
    assets,
    nodes,
    compileTrafficSources(index),
    text(assets.funnelGroup, 'defaultCost'),
  );
}
