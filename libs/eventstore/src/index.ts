export * from './event-store.port';
export * from './sqlite-event-store';
// EventStoreDbEventStore: through createEventStore, which loads the EventStoreDB client only when it is used.
export type { EventStoreDbEventStore } from './eventstoredb-event-store';
export * from './create-event-store';
export * from './event-store.contract';
export * from './private-files';
export * from './private-sqlite';
export * from './sqlite-writer-thread';
export * from './fold-stream';
export * from './storage-health';
export * from './multi-row-insert';
