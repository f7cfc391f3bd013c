// Middleware nodes: the walk pauses with the request for the configured destination (the reference
// payload); the answer's routeId picks the connection that takes it (onRouteId). A failure, a route
// the config does not have or one no connection takes routes to the `default` route's connection.
import type { FunnelNode, NodeMiddlewareRefParams } from '@funnel/assets-domain';
import { MIDDLEWARE_DEFAULT_TIMEOUT_MS, MIDDLEWARE_SCHEMA_VERSION } from '@funnel/contracts';
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { AssetRecordLike, MiddlewareAnswer } from '../model';
import type { CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import { isObject, list, num, obj } from '../compile/records';
import type { Walk } from '../walk/walk';

interface MiddlewareData {
  readonly idMiddlewareConfig: string;
  readonly config: AssetRecordLike | undefined;
  readonly overrides: Readonly<Record<string, unknown>> | undefined;
  /** The config's route ids (empty: any id is taken as given). */
  readonly routeIds: ReadonlySet<string>;
  readonly byRouteId: ReadonlyMap<string, CompiledEdge>;
  readonly timeoutMs: number;
}

export const middlewareFamily: NodeFamily<MiddlewareData> = {
  serverSide: true,
  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): MiddlewareData {
    const params: Partial<NodeMiddlewareRefParams> = ('nodeMiddlewareRefParams' in node && node.nodeMiddlewareRefParams) || {};
    const idMiddlewareConfig = params.idMiddlewareConfig ?? '';
    const config = context.index.get('middlewareconfig', idMiddlewareConfig);
    if (config === undefined)
      context.warn('missingAsset', `middleware config ${idMiddlewareConfig} is not among the funnel's assets; the node takes ${FALLBACK_ROUTE_KEY}`);
    const byRouteId = new Map<string, CompiledEdge>();
    for (const edge of out) {
      const routeId = edge.connection.connectionMiddlewareParams?.onRouteId;
      if (typeof routeId === 'string' && !byRouteId.has(routeId)) byRouteId.set(routeId, edge);
    }
    const routeIds = new Set(list(config, 'routes').flatMap((route) => (isObject(route) && typeof route.idRoute === 'string' ? [route.idRoute] : [])));
    return {
      idMiddlewareConfig,
      config,
      overrides: params.destinationOverrides as Readonly<Record<string, unknown>> | undefined,
      routeIds,
      byRouteId,
      timeoutMs: num(obj(config, 'destination'), 'timeoutMs', MIDDLEWARE_DEFAULT_TIMEOUT_MS),
    };
  },

  run(node: GraphNode<MiddlewareData>, walk: Walk): NodeStep {
    const { data } = node;
    if (data.config === undefined) return decide(node, walk, { failure: `middleware config ${data.idMiddlewareConfig} is missing` }, false);
    const hit = walk.hit!;
    const call = {
      idNode: node.idNode,
      idMiddlewareConfig: data.idMiddlewareConfig,
      config: data.config,
      ...(data.overrides === undefined ? {} : { overrides: data.overrides }),
      payload: middlewarePayload(node, walk, hit.hitId, data),
      timeoutMs: data.timeoutMs,
    };
    return { call, resume: (answer) => decide(node, walk, answer, true) };
  },
};

function decide(node: GraphNode<MiddlewareData>, walk: Walk, answer: MiddlewareAnswer, called: boolean): NodeStep {
  const { data } = node;
  let routeId = FALLBACK_ROUTE_KEY;
  let from: 'answer' | 'default' = 'default';
  let reason: string;
  if ('failure' in answer) reason = `the middleware failed (${answer.failure}), so the node takes "${FALLBACK_ROUTE_KEY}"`;
  else if (data.routeIds.size > 0 && !data.routeIds.has(answer.routeId)) {
    reason = `the middleware answered route "${answer.routeId}", which config ${data.idMiddlewareConfig} does not have, so the node takes "${FALLBACK_ROUTE_KEY}"`;
  } else if (!data.byRouteId.has(answer.routeId)) {
    reason = `the middleware answered route "${answer.routeId}", which no connection takes, so the node takes "${FALLBACK_ROUTE_KEY}"`;
  } else {
    routeId = answer.routeId;
    from = 'answer';
    reason = `the middleware answered route "${routeId}"`;
  }
  const edge = data.byRouteId.get(routeId);
  walk.record(node, { kind: 'middleware', idMiddlewareConfig: data.idMiddlewareConfig, routeId, from, reason, idConnection: edge?.idConnection ?? null });
  if (called) walk.effects.push({ type: 'middlewareCall', idNode: node.idNode, idMiddlewareConfig: data.idMiddlewareConfig, routeId, from });
  if (edge === undefined) {
    return walk.deadEnd(node.idNode, 'noDefaultRoute', `node ${node.idNode} (${node.nodeName}) takes "${routeId}", and no connection takes it`);
  }
  return edge.idTargetNode;
}

/** The reference product's middleware request body. */
function middlewarePayload(node: GraphNode, walk: Walk, hitId: string, data: MiddlewareData): Record<string, unknown> {
  const { session, input, graph, trafficSource } = walk;
  const first = walk.hits[0];
  return {
    schema_version: MIDDLEWARE_SCHEMA_VERSION,
    event_type: 'middleware_request',
    request_id: hitId,
    timestamp: walk.now.toISOString(),
    execute_timeout_ms: data.timeoutMs,
    visitor: { id: session.visitorId, ip: input.visitor.ip ?? '', attributes: input.visitor.attributes },
    funnel: { id: graph.idFunnel, name: graph.funnelName, id_funnel_group: graph.idFunnelGroup, node: { id: node.idNode, name: node.nodeName } },
    traffic_source: { id: session.idTrafficSource, name: trafficSource?.name ?? '' },
    hit: { id: hitId, time: walk.now.toISOString(), is_entrance: first?.isEntrance ?? false, cost: session.cost },
    session: { started_at: new Date(session.startedAt).toISOString(), current_node: session.currentNode, last_hit_id: session.lastHitId },
    tracking_fields: walk.trackingFieldsByName(),
    url_buffer: session.urlBuffer,
    action_data: first !== undefined && first.action > 0 ? { action: first.action, from_hit_id: first.previousHitId } : null,
    visitor_tags: session.tags,
  };
}
