import { CheckpointStore, Doc, ReadCollection, ReadStore } from '../read-store.port';
import { EmbeddedCheckpointStore } from './checkpoint-store';
import { EmbeddedCollection } from './collection';
import { CompiledQueryCache } from './compiled-queries';

/**
 * In-memory ReadStore. Filters and sorts are evaluated by mingo so they match MongoDB's semantics,
 * as are projections and update operators beyond the common cases this folder applies itself for
 * speed (top-level projections; $set, $unset, $inc on plain paths), which property tests check
 * against mingo. Added here: storage by _id, unique and lookup indexes, upserts, unordered bulk
 * writes and MongoDB's error codes. Not durable: models are rebuilt from the event log after a restart.
 */
export class EmbeddedReadStore implements ReadStore {
  readonly durable = false;
  readonly checkpoints: CheckpointStore = new EmbeddedCheckpointStore();
  private readonly collections = new Map<string, EmbeddedCollection>();
  private readonly queries = new CompiledQueryCache();

  collection<T extends Doc = Doc>(name: string): ReadCollection<T> {
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new EmbeddedCollection(name, this.queries);
      this.collections.set(name, collection);
    }
    // The collection stores plain documents; T is the caller's view of them, as with the driver.
    return collection as unknown as ReadCollection<T>;
  }

  async close(): Promise<void> {
    // Nothing to release; the data stays readable, like a driver that reconnects on demand.
  }
}
