import { join } from 'node:path';
import { EventStore, createEventStore } from '@funnel/eventstore';
import type { Logger, ReadinessCheck } from '@funnel/platform';
import { READ_STATE_FILE, ReadStore, createReadStore } from '@funnel/readstore';
import { ensureDataDir } from './data-dir';

export interface Stores {
  eventStore: EventStore;
  readStore: ReadStore;
  close(): Promise<void>;
}

export interface StoreSettings {
  DATA_DIR: string;
  EVENTSTORE_URL?: string;
  MONGO_URL?: string;
  MONGO_DB: string;
}

const EVENTS_FILE = 'events.sqlite';

/**
 * EventStoreDB and MongoDB when their URLs are set, else SQLite under DATA_DIR (refused at start when
 * DATA_DIR cannot be created or written) and embedded read models, whose persistent collections are
 * kept in DATA_DIR/readstate.sqlite. The logger hears when the event
 * log starts failing to write for its storage (a full disk, a read-only volume) and when it writes again.
 */
export async function openStores(config: StoreSettings, logger?: Logger): Promise<Stores> {
  if (!config.EVENTSTORE_URL || !config.MONGO_URL) ensureDataDir(config.DATA_DIR, [EVENTS_FILE, READ_STATE_FILE]);
  const eventStore = createEventStore({
    eventStoreUrl: config.EVENTSTORE_URL,
    dataDir: config.DATA_DIR,
    fileName: EVENTS_FILE,
    onStorageChange: (failure) => {
      if (failure)
        logger?.error(
          { problem: failure.problem, code: failure.driverCode, dataDir: config.DATA_DIR },
          'the event log cannot write: writes answer 507/503 and readiness reports not ready until it can',
        );
      else logger?.info({ dataDir: config.DATA_DIR }, 'the event log writes again');
    },
  });
  const readStore = await createReadStore({
    mongoUrl: config.MONGO_URL,
    dbName: config.MONGO_DB,
    stateFile: config.MONGO_URL ? undefined : join(config.DATA_DIR, READ_STATE_FILE),
  });
  return {
    eventStore,
    readStore,
    async close() {
      await readStore.close();
      await eventStore.close();
    },
  };
}

/** Readiness `storage`: false while the event log cannot write (see EventStore.storageWritable); adapters that cannot tell count as ready. */
export function storageReadinessCheck(stores: Pick<Stores, 'eventStore'>): ReadinessCheck {
  return { name: 'storage', check: () => stores.eventStore.storageWritable?.() ?? true };
}
