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

/** Document ids kept by DocumentIds before it starts afresh (about 100 bytes each). */
const KEPT_DOCUMENT_IDS = 50_000;

/**
 * The document ids of assets named in requests, kept by kind, account and asset id. A bulk read
 * names up to a thousand assets: building each one's id anew makes a new string per asset that the
 * read model's lookup must flatten and hash (about a tenth of a find/byIds of 100 assets), while a
 * kept id is found by the asset id, whose hash its string already holds once the request's ids were
 * told apart, and comes with its own hash.
 */
export class DocumentIds {
  private readonly byScope = new Map<string, Map<string, string>>();
  private kept = 0;

  /** The document ids of assets `ids` of one kind in one account, in the same order. */
  of(kind: string, accountId: string, ids: readonly string[]): string[] {
    const scope = `${kind}:${accountId}`;
    let known = this.byScope.get(scope);
    if (known === undefined) {
      known = new Map();
      this.byScope.set(scope, known);
    }
    const documentIds = new Array<string>(ids.length);
    for (let i = 0; i < ids.length; i++) {
      let documentId = known.get(ids[i]);
      if (documentId === undefined) {
        if (this.kept >= KEPT_DOCUMENT_IDS) return this.afresh(kind, accountId, ids);
        documentId = assetDocumentId(kind, accountId, ids[i]);
        known.set(ids[i], documentId);
        this.kept++;
      }
      documentIds[i] = documentId;
    }
    return documentIds;
  }

  private afresh(kind: string, accountId: string, ids: readonly string[]): string[] {
    this.byScope.clear();
    this.kept = 0;
    return this.of(kind, accountId, ids);
  }
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
