// Nodes that do something on the side and pass the visitor on through their one connection: webhook
// (a dispatch of event node_execution; its delivery never changes the path) and visitor tag (adds its
// tags to the session).
import type { FunnelNode } from '@funnel/assets-domain';
import type { CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import type { Walk } from '../walk/walk';

function passOn(node: GraphNode, walk: Walk): NodeStep {
  const edge = node.out[0];
  walk.record(node, { kind: 'passThrough', idConnection: edge?.idConnection ?? null });
  return edge === undefined ? walk.deadEnd(node.idNode, 'deadEnd', `node ${node.idNode} (${node.nodeName}) has no outgoing connection`) : edge.idTargetNode;
}

interface WebhookData {
  readonly idWebhookConfig: string;
  /** False when the config is missing or switched off: no dispatch. */
  readonly dispatches: boolean;
}

export const webhookFamily: NodeFamily<WebhookData> = {
  serverSide: true,
  compile(node: FunnelNode, _out: readonly CompiledEdge[], context: CompileContext): WebhookData {
    const idWebhookConfig = ('nodeWebhookParams' in node && node.nodeWebhookParams?.idWebhookConfig) || '';
    const config = context.index.get('webhookconfig', idWebhookConfig);
    if (config === undefined) context.warn('missingAsset', `webhook config ${idWebhookConfig} is not among the funnel's assets; nothing is dispatched`);
    return { idWebhookConfig, dispatches: config !== undefined && config.enabled !== false };
  },
  run(node: GraphNode<WebhookData>, walk: Walk): NodeStep {
    const { data } = node;
    if (data.dispatches) {
      walk.effects.push({
        type: 'webhookDispatch',
        idNode: node.idNode,
        idWebhookConfig: data.idWebhookConfig,
        eventType: 'node_execution',
        hitId: walk.hit!.hitId,
      });
    }
    return passOn(node, walk);
  },
};

interface VisitorTagData {
  readonly idTags: readonly string[];
}

export const visitorTagFamily: NodeFamily<VisitorTagData> = {
  serverSide: true,
  compile(node: FunnelNode, _out: readonly CompiledEdge[], context: CompileContext): VisitorTagData {
    const idTags = ('nodeVisitorTagParams' in node && node.nodeVisitorTagParams?.idTags) || [];
    for (const id of idTags)
      if (context.index.get('visitortag', id) === undefined) context.warn('missingAsset', `visitor tag ${id} is not among the funnel's assets`);
    return { idTags: [...idTags] };
  },
  run(node: GraphNode<VisitorTagData>, walk: Walk): NodeStep {
    walk.addTags(node.data.idTags);
    walk.effects.push({ type: 'tagsSet', idNode: node.idNode, idTags: [...node.data.idTags] });
    return passOn(node, walk);
  },
};
