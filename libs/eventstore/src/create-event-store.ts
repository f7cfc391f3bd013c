import { join } from 'node:path';
import type { EventStore } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { ensurePrivateDirectory } from './private-files';
import type { StorageUnavailableError } from './storage-health';

export interface CreateEventStoreOptions {
  /** EventStoreDB connection string; when absent the embedded SQLite store is used. */
  eventStoreUrl?: string;
  /** Directory of the SQLite file (created 0700 when missing). */
  dataDir: string;
  /** SQLite file name inside dataDir (default `events.sqlite`). */
  fileName?: string;
  /** SQLite: told when appends start failing for the storage (full disk, read-only volume) and when they succeed again. */
  onStorageChange?: (failure: StorageUnavailableError | undefined) => void;
}

/** The embedded event log's file under the data directory. */
export const EVENT_STORE_FILE = 'events.sqlite';

export function createEventStore(options: CreateEventStoreOptions): EventStore {
  if (options.eventStoreUrl) {
    // Loaded on use: the EventStoreDB client (gRPC) would add to the start of every app that runs on SQLite.
    const { EventStoreDbEventStore } = require('./eventstoredb-event-store') as typeof import('./eventstoredb-event-store');
    return new EventStoreDbEventStore(options.eventStoreUrl);
  }
  const fileName = options.fileName ?? EVENT_STORE_FILE;
  ensurePrivateDirectory(options.dataDir, [fileName]);
  return new SqliteEventStore({ filename: join(options.dataDir, fileName), onStorageChange: options.onStorageChange });
}
