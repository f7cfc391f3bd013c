import { EventStore, createEventStore } from '@funnel/eventstore';
import { ReadStore, createReadStore } from '@funnel/readstore';

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

/** EventStoreDB and MongoDB when their URLs are set, else SQLite under DATA_DIR and embedded read models. */
export async function openStores(config: StoreSettings): Promise<Stores> {
  const eventStore = createEventStore({ eventStoreUrl: config.EVENTSTORE_URL, dataDir: config.DATA_DIR });
  const readStore = await createReadStore({ mongoUrl: config.MONGO_URL, dbName: config.MONGO_DB });
  return {
    eventStore,
    readStore,
    async close() {
      await readStore.close();
      await eventStore.close();
    },
  };
}
