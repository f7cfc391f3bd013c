export * from './read-store.port';
export { EmbeddedReadStore, EmbeddedStoreError } from './embedded';
export type { EmbeddedReadStoreOptions } from './embedded';
// MongoReadStore: through createReadStore, which loads the MongoDB driver only when it is used.
export type { MongoReadStore } from './mongo-read-store';
export type { MongoReadStoreOptions } from './mongo-read-store';
export { READ_STATE_FILE, createReadStore } from './create-read-store';
export type { ReadStoreConfig } from './create-read-store';
export { describeReadStoreContract } from './read-store.contract';
export type { ReadStoreContractFactory } from './read-store.contract';
