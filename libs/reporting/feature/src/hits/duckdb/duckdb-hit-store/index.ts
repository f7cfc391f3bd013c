// The embedded hit warehouse (DuckDbHitStore, store): its connections, ingest (with the waiting insert calls), reads, updates, tables and SQL.
export { DuckDbHitStore, type DuckDbHitStoreOptions } from './store';
export { INGEST_COMMIT_MS, INGEST_COMMIT_ROWS, INGEST_IDLE_MS } from './ingest-transaction';
