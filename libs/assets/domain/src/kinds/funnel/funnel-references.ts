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

/** The asset ids a node names in the params object of its type (string values only; a malformed node names none). */
export function nodeAssetIds(node: unknown): NodeAssetId[] {
  const type = nodeTypeOf(node);
  if (!type) return [];
  const paramsField = NODE_PARAMS[type].field;
  const params = (node as Record<string, unknown>)[paramsField];
  if (!isPlainObject(params)) return [];
  const found: NodeAssetId[] = [];
  for (const { key, kind, list, funnelLocal = false } of NODE_REFERENCE_FIELDS[type]) {
    const value = params[key];
    if (list) {
      if (Array.isArray(value)) value.forEach((id, k) => typeof id === 'string' && found.push({ path: `${paramsField}.${key}[${k}]`, kind, id, funnelLocal }));
    } else if (typeof value === 'string') {
      found.push({ path: `${paramsField}.${key}`, kind, id: value, funnelLocal });
    }
  }
  return found;
}

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
  if (typeof record.idFunnelGroup === 'string' && record.idFunnelGroup !== '') {
    references.push({ field: 'idFunnelGroup', kind: 'funnelgroup', id: record.idFunnelGroup });
  }
  if (Array.isArray(record.nodes)) {
    record.nodes.forEach((node, i) => {
      const type = nodeTypeOf(node);
      const pageType = type && PAGE_TYPE_OF_NODE[type];
      const idNode = isPlainObject(node) && typeof node.idNode === 'string' ? node.idNode : undefined;
      for (const { path, kind, id, funnelLocal } of nodeAssetIds(node)) {
        const field = `nodes[${i}].${path}`;
        // Named with its node as the graph's problems are.
        const reference: AssetReference = idNode === undefined ? { field, kind, id } : { field, label: `${field} (node ${idNode})`, kind, id };
        if (kind === 'pagegroup' && pageType) reference.where = { pageType };
        if (funnelLocal) reference.scope = { field: FUNNEL_SCOPE_FIELD, allowed: ['', idFunnel] };
        references.push(reference);
      }
    });
  }
  if (isPlainObject(record.incomingTrafficCostOverrides)) {
    for (const id of Object.keys(record.incomingTrafficCostOverrides)) {
      references.push({ field: `incomingTrafficCostOverrides.${id}`, kind: 'trafficsource', id });
    }
  }
  if (Array.isArray(record.postbackOverrides)) {
    record.postbackOverrides.forEach((override, k) => {
      const id = isPlainObject(override) ? override.idTrafficSource : undefined;
      if (typeof id === 'string') references.push({ field: `postbackOverrides[${k}].idTrafficSource`, kind: 'trafficsource', id });
    });
  }
  return references;
}
