import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { FieldProblem } from '../kind-rules';
import { ProblemList, isPlainObject, plural } from './funnel-problems';
import { nodeAssetIds, nodeTypeOf } from './funnel-references';
import { FUNNEL_LIMITS, FUNNEL_WARNING_CODES as CODES, type FunnelNodeType, NODE_PARAMS } from './funnel-types';

/**
 * What funnelWarnings needs to know of the assets a funnel references, by asset id. An asset missing
 * from its map gives no warning (a missing reference is an error of its own).
 */
export interface FunnelWarningContext {
  /** The keys each condition answers: its routes' idRoute, then `default` (the condition's slim `routeKeys`). */
  conditionRouteKeys: ReadonlyMap<string, readonly string[]>;
  /** The keys each logic script can return (its stored `routeKeys`). */
  logicScriptRouteKeys: ReadonlyMap<string, readonly string[]>;
  /** How many pages each page group holds (its slim `pageCount`). */
  pageGroupPageCounts: ReadonlyMap<string, number>;
  /** The archived assets the nodes name: kind to ids. */
  archived: ReadonlyMap<string, ReadonlySet<string>>;
}

/** A node the warnings can read: an object with a string id and a known type. */
interface GraphNode {
  index: number;
  id: string;
  type: FunnelNodeType;
  params: Record<string, unknown>;
  /** The node as given. */
  node: unknown;
}

/** A connection between two readable nodes, with its params object (the one of its source's type, or none). */
interface GraphEdge {
  source: string;
  target: string;
  connection: Record<string, unknown>;
}

const ROUTED_BY_KEYS: ReadonlySet<FunnelNodeType> = new Set(['logic', 'middleware', 'ai']);

/**
 * What a funnel should have but does not need to be saved (drafts are normal), for
 * `POST /funnel/validate/`; at most FUNNEL_LIMITS.maxProblems, then one counting the rest:
 * - a logic, middleware or AI node with no connection whose route keys hold `default` (the fallback);
 * - a condition route (or `default`) no connection of the node takes;
 * - a key the node's logic script can return, other than `default`, that no connection takes;
 * - a page group with no pages;
 * - a root or rotator whose outgoing weights do not sum to 1;
 * - a node no path from the root reaches (when the funnel has one root);
 * - an offer-group node none of whose connections is a conversion;
 * - an active funnel's node naming an archived asset (archiving a funnel archives its local assets,
 *   and its unarchive restores them; one archived on its own stays archived).
 * Malformed nodes and connections (save's errors) are left out, so this can run on any record.
 */
export function funnelWarnings(record: Readonly<Record<string, unknown>>, context: FunnelWarningContext): FieldProblem[] {
  const warnings = new ProblemList();
  const active = (record.status ?? 'active') === 'active';
  const nodes = graphNodes(record.nodes);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const edges = graphEdges(record.connections, byId);
  const outOf = new Map<string, GraphEdge[]>();
  for (const edge of edges) {
    const out = outOf.get(edge.source);
    if (out) out.push(edge);
    else outOf.set(edge.source, [edge]);
  }

  for (const node of nodes) {
    const at = `nodes[${node.index}]`;
    const label = `${at} (node ${node.id})`;
    const out = outOf.get(node.id) ?? [];
    const taken = takenKeys(out);
    const unconnected = (keys: readonly string[]) => [...new Set(keys)].filter((key) => !taken.has(key));

    if (ROUTED_BY_KEYS.has(node.type) && !taken.has(FALLBACK_ROUTE_KEY)) {
      warnings.add(at, CODES.NO_DEFAULT_ROUTE, `${label}: no connection takes the route key ${FALLBACK_ROUTE_KEY}, the fallback when no other route applies`);
    }
    if (node.type === 'condition') {
      const keys = context.conditionRouteKeys.get(String(node.params.idCondition));
      const missing = keys ? unconnected(keys) : [];
      if (missing.length) warnings.add(at, CODES.UNCONNECTED_ROUTE, `${label}: no connection takes the condition's ${routes(missing)}`);
    }
    if (node.type === 'logic') {
      const keys = context.logicScriptRouteKeys.get(String(node.params.idLogicScript));
      const missing = keys ? unconnected(keys.filter((key) => key !== FALLBACK_ROUTE_KEY)) : [];
      if (missing.length) warnings.add(at, CODES.UNCONNECTED_ROUTE, `${label}: no connection takes the script's ${routes(missing)}`);
    }
    if (node.type === 'landerGroup' || node.type === 'offerGroup') {
      const pages = context.pageGroupPageCounts.get(String(node.params.idPageGroup));
      if (pages === 0) {
        warnings.add(`${at}.nodePageGroupParams.idPageGroup`, CODES.EMPTY_PAGE_GROUP, `${label}: page group ${node.params.idPageGroup} holds no pages`);
      }
    }
    if ((node.type === 'root' || node.type === 'rotator') && out.length > 0) {
      const sum = out.reduce((total, { connection }) => total + weightOf(connection), 0);
      if (Math.abs(sum - 1) > FUNNEL_LIMITS.weightSumTolerance) {
        warnings.add(at, CODES.WEIGHTS_SUM, `${label}: the weights of its ${plural(out.length, 'connection')} sum to ${round(sum)}, not 1`);
      }
    }
    if (node.type === 'offerGroup' && !out.some(({ connection }) => pageParamsOf(connection)?.isConversion === true)) {
      warnings.add(at, CODES.NO_CONVERSION, `${label}: none of its connections is a conversion action`);
    }
    if (active) {
      for (const named of nodeAssetIds(node.node)) {
        if (context.archived.get(named.kind)?.has(named.id)) {
          warnings.add(
            `${at}.${named.path}`,
            CODES.ARCHIVED_REFERENCE,
            `${at}.${named.path} (node ${node.id}): ${named.kind} ${named.id} is archived, and the funnel is active`,
          );
        }
      }
    }
  }

  const roots = nodes.filter((node) => node.type === 'root');
  if (roots.length === 1) {
    const reached = reachable(roots[0].id, outOf);
    for (const node of nodes) {
      if (!reached.has(node.id))
        warnings.add(`nodes[${node.index}]`, CODES.UNREACHABLE, `nodes[${node.index}] (node ${node.id}): no path from the root reaches it`);
    }
  }
  return warnings.bounded();
}

function graphNodes(value: unknown): GraphNode[] {
  if (!Array.isArray(value)) return [];
  const nodes: GraphNode[] = [];
  const seen = new Set<string>();
  value.forEach((node, index) => {
    const type = nodeTypeOf(node);
    const id = (node as Record<string, unknown> | undefined)?.idNode;
    if (!type || typeof id !== 'string' || seen.has(id)) return;
    seen.add(id);
    const params = (node as Record<string, unknown>)[NODE_PARAMS[type].field];
    nodes.push({ index, id, type, params: isPlainObject(params) ? params : {}, node });
  });
  return nodes;
}

function graphEdges(value: unknown, byId: ReadonlyMap<string, GraphNode>): GraphEdge[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((connection): GraphEdge[] => {
    if (!isPlainObject(connection)) return [];
    const { idSourceNode: source, idTargetNode: target } = connection;
    if (typeof source !== 'string' || typeof target !== 'string' || !byId.has(source) || !byId.has(target)) return [];
    return [{ source, target, connection }];
  });
}

/** The route keys (and middleware route ids) the connections out of a node take. */
function takenKeys(out: readonly GraphEdge[]): Set<string> {
  const keys = new Set<string>();
  for (const { connection } of out) {
    const logic = connection.connectionLogicParams;
    if (isPlainObject(logic) && Array.isArray(logic.onRouteKeys)) for (const key of logic.onRouteKeys) if (typeof key === 'string') keys.add(key);
    const middleware = connection.connectionMiddlewareParams;
    if (isPlainObject(middleware) && typeof middleware.onRouteId === 'string') keys.add(middleware.onRouteId);
  }
  return keys;
}

function weightOf(connection: Record<string, unknown>): number {
  const params = connection.connectionRotatorParams;
  const weight = isPlainObject(params) ? params.weight : undefined;
  return typeof weight === 'number' && Number.isFinite(weight) ? weight : 0;
}

function pageParamsOf(connection: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = connection.connectionPageParams;
  return isPlainObject(params) ? params : undefined;
}

function reachable(root: string, outOf: ReadonlyMap<string, readonly GraphEdge[]>): Set<string> {
  const reached = new Set([root]);
  const queue = [root];
  while (queue.length) {
    for (const { target } of outOf.get(queue.shift()!) ?? []) {
      if (!reached.has(target)) {
        reached.add(target);
        queue.push(target);
      }
    }
  }
  return reached;
}

/** At most this many route keys named in one warning. */
const KEYS_SHOWN = 10;

function routes(keys: readonly string[]): string {
  const shown = keys.slice(0, KEYS_SHOWN).join(', ');
  const more = keys.length > KEYS_SHOWN ? ` and ${keys.length - KEYS_SHOWN} more` : '';
  return `${keys.length === 1 ? 'route' : 'routes'} ${shown}${more}`;
}

function round(value: number): string {
  return String(Math.round(value * 1e6) / 1e6);
}
