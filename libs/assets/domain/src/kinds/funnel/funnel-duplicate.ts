import { generateAssetId } from '@funnel/contracts';
import { isPlainObject } from './funnel-problems';
import { NODE_REFERENCE_FIELDS, funnelReferences, nodeTypeOf } from './funnel-references';
import { type FunnelRecord, NODE_PARAMS } from './funnel-types';

/**
 * The graph of a copy of a funnel: the same record with `idFunnel` set to `newFunnelId`, a new id for
 * every node and every connection (connection ends follow their nodes), and every asset id a node
 * names that `idMap` holds (old asset id to new: the copies of the funnel's local page groups and
 * conditions) replaced by its new id. Nothing else changes: nodes and connections keep their order
 * (the copy's `nodes[i]` is the copy of `nodes[i]`), types, names, positions and params. The source
 * is not modified. New ids come from `newId` (default: generateAssetId) and are never an id the
 * source, the map or the new funnel id already uses, nor one another.
 */
export function duplicateFunnel(
  record: FunnelRecord,
  newFunnelId: string,
  idMap: ReadonlyMap<string, string>,
  newId: () => string = generateAssetId,
): FunnelRecord {
  const used = new Set<string>([record.idFunnel, newFunnelId, ...idMap.keys(), ...idMap.values()]);
  for (const { id } of funnelReferences(record as unknown as Record<string, unknown>)) used.add(id);
  for (const node of record.nodes) used.add(node.idNode);
  for (const connection of record.connections) used.add(connection.idConnection);
  const fresh = () => {
    let id = newId();
    while (used.has(id)) id = newId();
    used.add(id);
    return id;
  };

  const copy = structuredClone(record);
  copy.idFunnel = newFunnelId;
  const nodeIds = new Map<string, string>();
  for (const node of copy.nodes) {
    const id = fresh();
    if (!nodeIds.has(node.idNode)) nodeIds.set(node.idNode, id);
    node.idNode = id;
    remapAssetIds(node as unknown as Record<string, unknown>, idMap);
  }
  for (const connection of copy.connections) {
    connection.idConnection = fresh();
    connection.idSourceNode = nodeIds.get(connection.idSourceNode) ?? connection.idSourceNode;
    connection.idTargetNode = nodeIds.get(connection.idTargetNode) ?? connection.idTargetNode;
  }
  return copy;
}

/** Replaces each asset id the node's params name by its new id, where the map has one. */
function remapAssetIds(node: Record<string, unknown>, idMap: ReadonlyMap<string, string>): void {
  const type = nodeTypeOf(node);
  const params = type && node[NODE_PARAMS[type].field];
  if (!type || !isPlainObject(params)) return;
  const mapped = (id: unknown) => (typeof id === 'string' ? (idMap.get(id) ?? id) : id);
  for (const { key, list } of NODE_REFERENCE_FIELDS[type]) {
    const value = params[key];
    if (list && Array.isArray(value)) params[key] = value.map(mapped);
    else if (!list && typeof value === 'string') params[key] = mapped(value);
  }
}
