import { BulkOperation, DUPLICATE_KEY, Doc, ReadCollection, ReadStoreBulkWriteError } from '@funnel/readstore';

/** A document that remembers the stream revision it reflects. */
export type RevisionedDoc = Doc & { revision: number };

/** Replace-or-insert that only lands when the stored document is older (replays become no-ops). */
export function guardedReplace<T extends RevisionedDoc>(doc: T): BulkOperation<T> {
  return {
    replaceOne: {
      filter: { _id: doc._id, $or: [{ revision: { $lt: doc.revision } }, { revision: { $exists: false } }] },
      replacement: doc,
      upsert: true,
    },
  };
}

/** Writes guarded replacements; a duplicate key means the stored document is already newer, so it is skipped. */
export async function writeGuarded<T extends RevisionedDoc>(collection: ReadCollection<T>, operations: BulkOperation<T>[]): Promise<void> {
  if (!operations.length) return;
  try {
    await collection.bulkWrite(operations);
  } catch (error) {
    if (error instanceof ReadStoreBulkWriteError && error.failures.every((f) => f.code === DUPLICATE_KEY)) return;
    throw error;
  }
}
