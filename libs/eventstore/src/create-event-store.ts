import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventStore } from './event-store.port';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
import { SqliteEventStore } from './sqlite-event-store';

export interface CreateEventStoreOptions {
  /** EventStoreDB connection string; when absent the embedded SQLite store is used. */
  eventStoreUrl?: string;
  /** Directory of the SQLite file (created when missing). */
  dataDir: string;
  /** SQLite file name inside dataDir (default `events.sqlite`). */
  fileName?: string;
}

export function createEventStore(options: CreateEventStoreOptions): EventStore {
  if (options.eventStoreUrl) return new EventStoreDbEventStore(options.eventStoreUrl);
  mkdirSync(options.dataDir, { recursive: true });
  return new SqliteEventStore({ filename: join(options.dataDir, options.fileName ?? 'events.sqlite') });
}
