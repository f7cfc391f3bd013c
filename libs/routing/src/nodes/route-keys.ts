// Nodes that route by key (condition, logic, AI): each connection takes route keys; the node follows
// the connection holding the key it chose, else the one holding `default`, else it is a dead end.
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { CompiledEdge, GraphNode } from '../compile/graph';

export interface KeyedEdges {
  readonly byKey: ReadonlyMap<string, CompiledEdge>;
  /** Every key a connection takes, in connection order. */
  readonly keys: readonly string[];
}

export function keyedEdges(out: readonly CompiledEdge[]): KeyedEdges {
  const byKey = new Map<string, CompiledEdge>();
  for (const edge of out) {
    const keys = edge.connection.connectionLogicParams?.onRouteKeys;
    if (!Array.isArray(keys)) continue;
    for (const key of keys) if (typeof key === 'string' && !byKey.has(key)) byKey.set(key, edge);
  }
  return { byKey, keys: [...byKey.keys()] };
}

/** The connection a key takes: its own, else `default`'s, else none. */
export function edgeForKey(edges: KeyedEdges, key: string): CompiledEdge | undefined {
  return edges.byKey.get(key) ?? edges.byKey.get(FALLBACK_ROUTE_KEY);
}

/** The message of a keyed node with no connection for its key and none for `default`. */
export function noRouteReason(node: GraphNode, key: string): string {
  return `node ${node.idNode} (${node.nodeName}) chose "${key}", and no connection takes it or ${FALLBACK_ROUTE_KEY}`;
}
