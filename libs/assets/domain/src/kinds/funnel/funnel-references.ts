import type { AssetReference } from '../kind-rules';
import { isPlainObject } from './funnel-problems';
import * as contracts from '@funnel/contracts';
import * as tables from './funnel-types';
import type { FunnelNodeType } from './funnel-types';

export { NODE_REFERENCE_FIELDS, type NodeReferenceField } from '@funnel/contracts';

// Bound once: compiled imports read another module's exports through getters (here through the
// re-exports of @funnel/contracts), which every node of a large funnel would otherwise pay for.
const { NODE_REFERENCE_FIELDS } = contracts;
const { FUNNEL_NODE_TYPES, NODE_PARAMS, PAGE_TYPE_OF_NODE } = tables;

/** The scope field of funnel-local assets (page groups, conditions): "" (or absent) is global. */
export const FUNNEL_SCOPE_FIELD = 'restrictToFunnelId';

/** The node's type when it is one; undefined otherwise. */
export function nodeTypeOf(node: unknown): FunnelNodeType | undefined {
  const type = isPlainObject(node) ? node.nodeType : undefined;
  return typeof type === 'string' && (FUNNEL_NODE_TYPES as readonly string[]).includes(type) ? (type as FunnelNodeType) : undefined;
}

/** An asset id a node names: where (path from the node), which kind, the id. */
export interface NodeAssetId {
  path: string;
  kind: string;
  id: string;
  funnelLocal: boolean;
}

/**
 * Called for each asset id a funnel names: its kind and id, the index of the node naming it (-1 for
 * a field of the funnel itself) and the field's path (from the node, or from the funnel).
 */
type ReferenceVisitor = (kind: string, id: string, nodeIndex: number, path: string, funnelLocal: boolean) => void;

/** A node type's reference fields with their paths from the node (`<params field>.<key>`), made once rather than per node. */
const NODE_REFERENCE_PATHS = new Map(
  FUNNEL_NODE_TYPES.map((type) => {
    const paramsField = NODE_PARAMS[type].field;
    return [type, { paramsField, fields: NODE_REFERENCE_FIELDS[type].map((field) => ({ ...field, path: `${paramsField}.${field.key}` })) }] as const;
  }),
);

/** Visits the asset ids a node names in the params object of its type (string values only; a malformed node names none). */
function forEachNodeAssetId(node: unknown, nodeIndex: number, visit: ReferenceVisitor): void {
  const type = nodeTypeOf(node);
  if (!type) return;
  const { paramsField, fields } = NODE_REFERENCE_PATHS.get(type)!;
  const params = (node as Record<string, unknown>)[paramsField];
  if (!isPlainObject(params)) return;
  for (const { key, kind, list, funnelLocal = false, path } of fields) {
    const value = params[key];
    if (list) {
      if (Array.isArray(value)) value.forEach((id, k) => typeof id === 'string' && visit(kind, id, nodeIndex, `${path}[${k}]`, funnelLocal));
    } else if (typeof value === 'string') {
      visit(kind, value, nodeIndex, path, funnelLocal);
    }
  }
}

/** The asset ids a node names in the params object of its type (string values only; a malformed node names none). */
export function nodeAssetIds(node: unknown): NodeAssetId[] {
  const found: NodeAssetId[] = [];
  forEachNodeAssetId(node, 0, (kind, id, _index, path, funnelLocal) => found.push({ path, kind, id, funnelLocal }));
  return found;
}

/**
 * Visits every asset a funnel names (see funnelReferences), building no text for the fields of its
 * nodes: the graph check needs only the ids, the reference check its field names.
 */
function forEachFunnelReference(record: Readonly<Record<string, unknown>>, visit: ReferenceVisitor): void {
  if (typeof record.idFunnelGroup === 'string' && record.idFunnelGroup !== '') visit('funnelgroup', record.idFunnelGroup, -1, 'idFunnelGroup', false);
  if (Array.isArray(record.nodes)) record.nodes.forEach((node, i) => forEachNodeAssetId(node, i, visit));
  if (isPlainObject(record.incomingTrafficCostOverrides)) {
    for (const id of Object.keys(record.incomingTrafficCostOverrides)) visit('trafficsource', id, -1, `incomingTrafficCostOverrides.${id}`, false);
  }
  if (Array.isArray(record.postbackOverrides)) {
    record.postbackOverrides.forEach((override, k) => {
      const id = isPlainObject(override) ? override.idTrafficSource : undefined;
      if (typeof id === 'string') visit('trafficsource', id, -1, `postbackOverrides[${k}].idTrafficSource`, false);
    });
  }
}

/** The ids of every asset a funnel names (funnelReferences' ids). */
export function funnelReferencedIds(record: Readonly<Record<string, unknown>>): Set<string> {
  const ids = new Set<string>();
  forEachFunnelReference(record, (_kind, id) => ids.add(id));
  return ids;
}

/** What a page group named by a node of a page type must hold: one object per page type, shared by every reference. */
const WHERE_PAGE_TYPE = new Map(['lander', 'offer'].map((pageType) => [pageType, Object.freeze({ pageType })]));

/**
 * Every asset a funnel names, each to be checked by the generic reference check: the funnel group,
 * what each node's params name (page groups of the node's pageType, conditions, logic scripts,
 * visitor tags, middleware and webhook configs, AI node settings), and the traffic sources of the
 * cost and postback overrides. Page groups and conditions carry a `scope`: global or local to this
 * funnel. Every field that holds an id gives one reference, so one asset named by several nodes
 * appears several times (the checker may look each distinct kind and id up once).
 */
export function funnelReferences(record: Readonly<Record<string, unknown>>): AssetReference[] {
  const references: AssetReference[] = [];
  const idFunnel = typeof record.idFunnel === 'string' ? record.idFunnel : '';
  // One scope for every funnel-local reference of this funnel (references are read, never changed).
  const scope = { field: FUNNEL_SCOPE_FIELD, allowed: ['', idFunnel] };
  const nodes = Array.isArray(record.nodes) ? record.nodes : [];
  forEachFunnelReference(record, (kind, id, nodeIndex, path, funnelLocal) => {
    if (nodeIndex < 0) {
      references.push({ field: path, kind, id });
      return;
    }
    const node: unknown = nodes[nodeIndex];
    const field = `nodes[${nodeIndex}].${path}`;
    const idNode = isPlainObject(node) && typeof node.idNode === 'string' ? node.idNode : undefined;
    // Named with its node as the graph's problems are.
    const reference: AssetReference = idNode === undefined ? { field, kind, id } : { field, label: `${field} (node ${idNode})`, kind, id };
    const pageType = kind === 'pagegroup' ? PAGE_TYPE_OF_NODE[nodeTypeOf(node)!] : undefined;
    if (pageType) reference.where = WHERE_PAGE_TYPE.get(pageType);
    if (funnelLocal) reference.scope = scope;
    references.push(reference);
  });
  return references;
}
