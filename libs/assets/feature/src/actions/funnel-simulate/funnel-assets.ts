// What a funnel walk needs, loaded for the simulator: the funnel's references (its group, what its
// nodes name, the traffic sources of its overrides and of the simulated entrances), then the pages of
// its page groups, then the offer sources of those pages. Pure: the reads come in as a function.
import type { AssetRecord } from '@funnel/assets-domain';
import { type AssetReference, type FunnelRecord, funnelReferences, isInReferenceScope } from '@funnel/assets-domain';
import { type AssetRecordLike, type FunnelAssets, funnelAssetsOf } from '@funnel/routing';
import { assetKindByName } from '@funnel/contracts';

/** Reads the live records of one kind among `ids` in the caller's account (missing ones left out). */
export type AssetFinder = (kind: string, ids: readonly string[]) => Promise<AssetRecord[]>;

const FUNNEL_GROUP_KIND = 'funnelgroup';

/** Records found per kind name. */
export type FoundRecords = Readonly<Record<string, readonly AssetRecordLike[]>>;

/** The engine's FunnelAssets from a funnel and the records found for it (the funnel group among them). */
export function toFunnelAssets(funnel: FunnelRecord, found: FoundRecords): FunnelAssets {
  return funnelAssetsOf(funnel, found, found[FUNNEL_GROUP_KIND]?.[0]);
}

/** The ids of a list of objects' `field` (strings only), e.g. a page group's pages' idPage. */
function idsIn(items: unknown, field: string): string[] {
  if (!Array.isArray(items)) return [];
  return items.flatMap((item) => {
    const id = typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[field] : undefined;
    return typeof id === 'string' ? [id] : [];
  });
}

/** The pages a page group lists. */
const pagesOf = (group: AssetRecordLike) => idsIn(group.pages, 'idPage');

/** The offer source an offer page names. */
function offerSourceOf(page: AssetRecordLike): string[] {
  const params = page.offerParams as { idOfferSource?: unknown } | undefined;
  return typeof params?.idOfferSource === 'string' ? [params.idOfferSource] : [];
}

/**
 * Every asset a walk of `funnel` may touch, read with `find` (in the caller's account): what the
 * funnel names (a page group or condition only in a scope the funnel may use, a page group only of its
 * node's page type, as save checks them), the traffic sources of `entranceSources`, the pages of the
 * page groups and the offer sources of the pages. Missing assets are left out: the engine warns.
 */
export async function loadFunnelAssets(funnel: FunnelRecord, entranceSources: readonly string[], find: AssetFinder): Promise<FunnelAssets> {
  const references: AssetReference[] = [...funnelReferences(funnel), ...entranceSources.map((id) => ({ field: 'steps', kind: 'trafficsource', id }))];
  const byKind = new Map<string, AssetReference[]>();
  for (const reference of references) byKind.set(reference.kind, [...(byKind.get(reference.kind) ?? []), reference]);
  const found: Record<string, AssetRecord[]> = {};
  await Promise.all(
    [...byKind].map(async ([kind, named]) => {
      const records = await find(kind, [...new Set(named.map((r) => r.id))]);
      const idField = assetKindByName(kind)?.idField ?? '';
      // A record is used when a reference to it may use it (not a funnel-local asset of another funnel), as save checks it.
      found[kind] = records.filter((record) => named.some((r) => r.id === record[idField] && fits(r, record)));
    }),
  );
  found.page = await find('page', [...new Set((found.pagegroup ?? []).flatMap(pagesOf))]);
  const offerSources = [...new Set(found.page.flatMap(offerSourceOf))];
  found.offersource = [...(found.offersource ?? []), ...(offerSources.length ? await find('offersource', offerSources) : [])];
  return toFunnelAssets(funnel, found);
}

function fits(reference: AssetReference, record: AssetRecord): boolean {
  if (!isInReferenceScope(reference, record)) return false;
  return Object.entries(reference.where ?? {}).every(([field, value]) => record[field] === value);
}
