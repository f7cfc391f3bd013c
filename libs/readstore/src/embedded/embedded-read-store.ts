import { CheckpointStore, CollectionOptions, Doc, ReadCollection, ReadStore } from '../read-store.port';
import { EmbeddedCheckpointStore } from './checkpoint-store';
import { EmbeddedCollection } from './collection';
import { CompiledQueryCache } from './compiled-queries';
import { ReadStateFile } from './state-file';

export interface EmbeddedReadStoreOptions {
  /**
   * The SQLite file that keeps the persistent collections (standalone: `DATA_DIR/readstate.sqlite`;
   * created 0600 when absent). Without it they live in memory only, as every other collection.
   */
  stateFile?: string;
}

/**
 * In-memory ReadStore. Filters and sorts are evaluated by mingo so they match MongoDB's semantics,
 * as are projections and update operators beyond the common cases this folder applies itself for
 * speed (top-level projections; $set, $unset, $inc on plain paths), which property tests check
 * against mingo. Added here: storage by _id, unique and lookup indexes, upserts, unordered bulk
 * writes and MongoDB's error codes. Projections' models are not durable: they are rebuilt from the
 * event log after a restart. Persistent collections (state no projection rebuilds: job statuses,
 * counters) are written through to the state file, when there is one, and loaded from it.
 */
export class EmbeddedReadStore implements ReadStore {
  readonly durable = false;
  readonly checkpoints: CheckpointStore = new EmbeddedCheckpointStore();
  private readonly collections = new Map<string, { collection: EmbeddedCollection; persistent: boolean }>();
  private readonly queries = new CompiledQueryCache();
  private readonly stateFile: ReadStateFile | undefined;

  constructor(options: EmbeddedReadStoreOptions = {}) {
    this.stateFile = options.stateFile === undefined ? undefined : new ReadStateFile(options.stateFile);
  }

  collection<T extends Doc = Doc>(name: string, options: CollectionOptions = {}): ReadCollection<T> {
    const persistent = options.persistent === true;
    let opened = this.collections.get(name);
    if (!opened) {
      opened = { collection: new EmbeddedCollection(name, this.queries, persistent ? this.stateFile?.journal(name) : undefined), persistent };
      this.collections.set(name, opened);
    } else if (opened.persistent !== persistent) {
      throw new Error(`read store: collection ${name} is opened both as persistent and not`);
    }
    // The collection stores plain documents; T is the caller's view of them, as with the driver.
    return opened.collection as unknown as ReadCollection<T>;
  }

  /**
   * Closes the state file: persistent collections refuse writes from then on (nothing else is
   * released: the data stays readable, like a driver that reconnects on demand).
   */
  async close(): Promise<void> {
    this.stateFile?.close();
  }
}
