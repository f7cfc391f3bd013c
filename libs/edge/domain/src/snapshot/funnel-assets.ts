import { ASSET_KINDS, EDGE_SNAPSHOT_KINDS, FUNNEL_GROUP_KIND, FUNNEL_KIND, isValidAssetId } from '@funnel/contracts';
import type { FunnelRecord } from '@funnel/assets-domain';
import { type AssetRecordLike, type FunnelAssets, funnelAssetsOf } from '@funnel/routing';
import type { AssetSnapshotState } from './asset-snapshot-state';

/**
 * Kinds a walk may use without the funnel naming them: an entrance link names its traffic source, so
 * every one of the account's is in every funnel's assets, and a change to any of them recompiles them.
 */
export const ACCOUNT_WIDE_KINDS: readonly string[] = ['trafficsource'];

/** A funnel's assets and what they depend on: the ids they name (found or not), and the account-wide kinds. */
export interface CollectedFunnelAssets {
  assets: FunnelAssets;
  /** Every asset id the funnel and its assets name, whether the snapshot has it or not (yet). */
  names: ReadonlySet<string>;
}

const LOOKUP_KINDS = EDGE_SNAPSHOT_KINDS.filter((kind) => kind !== FUNNEL_KIND.kind);
const ID_FIELD_OF = new Map(ASSET_KINDS.map((kind) => [kind.kind, kind.idField]));

/**
 * The funnel's assets from the snapshot: the funnel, then every asset an id in it names (any field,
 * nested, lists included), then those their records name (a page group's pages, a page's offer
 * source, a condition's tags ...), plus the account-wide kinds. Generic: no kind's field is spelled
 * out here, so a new reference field is followed without a change. Undefined when the funnel is
 * missing or deleted.
 */
export function collectFunnelAssets(state: AssetSnapshotState, accountId: string, idFunnel: string): CollectedFunnelAssets | undefined {
  const funnel = state.get(accountId, FUNNEL_KIND.kind, idFunnel);
  if (!funnel) return undefined;
  const found: Record<string, AssetRecordLike[]> = {};
  let funnelGroup: AssetRecordLike | undefined;
  const names = new Set<string>([idFunnel]);
  const taken = new Set<string>();
  const queue: string[] = [];
  const take = (kind: string, record: AssetRecordLike) => {
    const key = `${kind}:${String(record[ID_FIELD_OF.get(kind) ?? 'id'] ?? '')}`;
    if (taken.has(key)) return;
    taken.add(key);
    if (kind === FUNNEL_GROUP_KIND.kind) funnelGroup = record;
    else (found[kind] ??= []).push(record);
    collectIds(record, (id) => {
      if (!names.has(id)) {
        names.add(id);
        queue.push(id);
      }
    });
  };
  for (const kind of ACCOUNT_WIDE_KINDS) for (const record of state.recordsOf(accountId, kind)) take(kind, record);
  collectIds(funnel, (id) => {
    if (!names.has(id)) {
      names.add(id);
      queue.push(id);
    }
  });
  while (queue.length) {
    const id = queue.shift()!;
    for (const kind of LOOKUP_KINDS) {
      const record = state.get(accountId, kind, id);
      if (record) take(kind, record);
    }
  }
  const assets = funnelAssetsOf(funnel as unknown as FunnelRecord, found, funnelGroup);
  return { assets, names };
}

/** Calls `found` with every string in `value` (nested objects and lists) that has the asset id format. */
export function collectIds(value: unknown, found: (id: string) => void, depth = 0): void {
  if (depth > 32) return;
  if (typeof value === 'string') {
    if (isValidAssetId(value)) found(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectIds(item, found, depth + 1);
  } else if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) collectIds(item, found, depth + 1);
  }
}
