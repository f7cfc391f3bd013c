import { ClickHouseHitStore } from './clickhouse-hit-store';
import { DuckDbHitStore } from './duckdb/duckdb-hit-store';
import type { HitStore } from './hit-store';

export interface CreateHitStoreOptions {
  /** ClickHouse HTTP URL (`CLICKHOUSE_URL`); when absent the embedded DuckDB store is used. */
  clickhouseUrl?: string;
  /** Directory of the embedded warehouse's files (created 0700 when missing). */
  dataDir: string;
  /** DuckDB file name inside dataDir (default `reporting.duckdb`). */
  fileName?: string;
  /** SQLite file inside dataDir with the hit-key index (default `reporting.sqlite`, the reporting queues' file). */
  indexFileName?: string;
}

/** The hit warehouse the configuration asks for: ClickHouse at `clickhouseUrl`, else DuckDB under `dataDir`. */
export async function createHitStore(options: CreateHitStoreOptions): Promise<HitStore> {
  if (options.clickhouseUrl) return ClickHouseHitStore.connect({ url: options.clickhouseUrl });
  return DuckDbHitStore.open({ dataDir: options.dataDir, fileName: options.fileName, indexFileName: options.indexFileName });
}
