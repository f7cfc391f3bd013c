import { SerializedJson } from '@funnel/contracts';
import { AssetDocument } from './asset-documents';

/** The fields of a document that say whether a serialized answer of it is still current, and place it in a page. */
export const DOCUMENT_HEAD = { assetId: 1, revision: 1, status: 1, idCategory: 1 } as const;

/** A document read without its record (DOCUMENT_HEAD). */
export type DocumentHead = Pick<AssetDocument, '_id' | 'assetId' | 'revision' | 'status' | 'idCategory'>;

/** Serialized full records kept by document id: at most this many, and this many bytes in all. */
const ANSWER_CACHE_ENTRIES = 2000;
const ANSWER_CACHE_BYTES = 32 * 1024 * 1024;

/** One record as find/byId shows it, serialized, and what it was made from. */
export interface CachedAnswer {
  /** The document's revision. */
  revision: number;
  /** The name of its category shown in it (undefined for a kind not kept in categories). */
  categoryName: string | undefined;
  answer: SerializedJson;
}

/** A bounded map of serialized answers; the oldest entries go first when it is full. */
export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  /** The answer kept for document `key`, when it was made from `revision` with `categoryName`. */
  current(key: string, revision: number, categoryName: string | undefined): CachedAnswer | undefined {
    const entry = this.entries.get(key);
    return entry && entry.revision === revision && entry.categoryName === categoryName ? entry : undefined;
  }

  remember(key: string, entry: CachedAnswer): void {
    this.forget(key);
    this.entries.set(key, entry);
    this.bytes += entry.answer.bytes.length;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= ANSWER_CACHE_ENTRIES && this.bytes <= ANSWER_CACHE_BYTES) break;
      this.forget(oldest);
    }
  }

  private forget(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.bytes -= entry.answer.bytes.length;
    this.entries.delete(key);
  }
}
