import { Doc, ReadCollection, ReadStore } from '@funnel/readstore';
import { AssetRecord } from '@funnel/assets-domain';

/** Read-model document of one asset: the record as the API shows it plus the fields queries index on. */
export interface AssetDocument extends Doc {
  kind: string;
  accountId: string;
  assetId: string;
  status: AssetRecord['status'];
  idCategory: string;
  /** Stream revision this document reflects (projection guard). */
  revision: number;
  /** Global log position of that event, "<commit>/<prepare>". */
  position: string;
  record: AssetRecord;
}

export const ASSETS_COLLECTION = 'assets';

export function assetDocumentId(kind: string, accountId: string, id: string): string {
  return `${kind}:${accountId}:${id}`;
}

export function assetsCollection(readStore: ReadStore): ReadCollection<AssetDocument> {
  return readStore.collection<AssetDocument>(ASSETS_COLLECTION);
}

export async function ensureAssetIndexes(collection: ReadCollection<AssetDocument>): Promise<void> {
  await collection.createIndex({ accountId: 1, kind: 1, status: 1 });
  await collection.createIndex({ accountId: 1, kind: 1, idCategory: 1 });
  // Paged lists walk an account's assets of a kind in id order (`assetId > cursor`).
  await collection.createIndex({ accountId: 1, kind: 1, assetId: 1 });
}
