import { EmbeddedReadStore } from './embedded';
import { ReadStore } from './read-store.port';

/** The embedded read store's state file under the data directory (its persistent collections). */
export const READ_STATE_FILE = 'readstate.sqlite';

export interface ReadStoreConfig {
  /** When set, read models live in MongoDB; otherwise in memory, rebuilt from the log at start. */
  mongoUrl?: string;
  dbName?: string;
  /** Embedded store: the SQLite file keeping its persistent collections (see EmbeddedReadStoreOptions). */
  stateFile?: string;
}

/** MongoDB when a URL is configured (connection checked before returning), else the embedded store (its persistent collections in `stateFile`). */
export async function createReadStore(config: ReadStoreConfig = {}): Promise<ReadStore> {
  if (config.mongoUrl) {
    // Loaded on use: the MongoDB driver would add to the start of every app that runs on the embedded store.
    const { MongoReadStore } = await import('./mongo-read-store');
    return MongoReadStore.connect({ url: config.mongoUrl, dbName: config.dbName });
  }
  return new EmbeddedReadStore({ stateFile: config.stateFile });
}
