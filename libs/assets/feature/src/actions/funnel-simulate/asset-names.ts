// "Name the ids": a pure pass over a walk's answer that puts each asset's name beside its id
// (`idPage` -> `pageName`, `idTags` -> `tagNames`, `idNode` -> `nodeName`), from the kinds' descriptors
// (id field, ids parameter, name field) and the funnel's nodes. Maps keyed by client-chosen names
// (URL parameters, tracking fields) are left as they are.
import { assetKindByName } from '@funnel/contracts';
import type { FunnelAssets } from '@funnel/routing';

/** Names by id, per id field (`idPage` -> id -> name). */
export interface AssetNames {
  single: ReadonlyMap<string, { nameField: string; names: ReadonlyMap<string, string> }>;
  /** Per ids parameter (`idTags`): the field the names go in (`tagNames`) and the names. */
  lists: ReadonlyMap<string, { namesField: string; names: ReadonlyMap<string, string> }>;
}

/** Objects under these keys hold client-chosen keys or values, never asset ids to name. */
const FREE_FORM = new Set(['trackingFields', 'urlBuffer', 'sticky', 'shares', 'params', 'step', 'payload']);

/** The names of every asset of a walk's snapshot; `listsByKind` says which FunnelAssets list holds each kind's records. */
export function assetNames(assets: FunnelAssets, listsByKind: Readonly<Record<string, string>>): AssetNames {
  const single = new Map<string, { nameField: string; names: Map<string, string> }>();
  const lists = new Map<string, { namesField: string; names: Map<string, string> }>();
  const add = (kind: string, records: readonly Readonly<Record<string, unknown>>[]) => {
    const descriptor = assetKindByName(kind);
    if (!descriptor) return;
    const entry = single.get(descriptor.idField) ?? { nameField: descriptor.nameField, names: new Map<string, string>() };
    for (const record of records) {
      const id = record[descriptor.idField];
      const name = record[descriptor.nameField];
      if (typeof id === 'string' && typeof name === 'string') entry.names.set(id, name);
    }
    single.set(descriptor.idField, entry);
    lists.set(descriptor.idsParam, { namesField: `${descriptor.nameField}s`, names: entry.names });
  };
  add('funnel', [assets.funnel]);
  if (assets.funnelGroup) add('funnelgroup', [assets.funnelGroup]);
  for (const [kind, list] of Object.entries(listsByKind)) add(kind, (assets as unknown as Record<string, readonly Record<string, unknown>[]>)[list] ?? []);
  const nodes = new Map<string, string>();
  for (const node of assets.funnel.nodes ?? [])
    if (typeof node?.idNode === 'string' && typeof node.nodeName === 'string') nodes.set(node.idNode, node.nodeName);
  single.set('idNode', { nameField: 'nodeName', names: nodes });
  return { single, lists };
}

/** `value` with each known asset id's name beside it (a name already there is kept; an unknown id gets none). */
export function nameIds<T>(value: T, names: AssetNames): T {
  return visit(value, names) as T;
}

function visit(value: unknown, names: AssetNames): unknown {
  if (Array.isArray(value)) return value.map((item) => visit(item, names));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(source)) {
    out[key] = FREE_FORM.has(key) ? item : visit(item, names);
    const one = names.single.get(key);
    if (one && typeof item === 'string' && !(one.nameField in source)) {
      const name = one.names.get(item);
      if (name !== undefined) out[one.nameField] = name;
    }
    const many = names.lists.get(key);
    if (many && Array.isArray(item) && !(many.namesField in source))
      out[many.namesField] = item.map((id) => (typeof id === 'string' ? (many.names.get(id) ?? null) : null));
  }
  return out;
}
