import { join } from 'node:path';
import { ensurePrivateDirectory } from '@funnel/eventstore';
import { ClickHouseHitStore } from './clickhouse-hit-store';
import type { HitStore } from './hit-store';
import { SqliteHitStore } from './sqlite-hit-store';

export interface CreateHitStoreOptions {
  /** ClickHouse HTTP URL (`CLICKHOUSE_URL`); when absent the embedded SQLite store is used. */
  clickhouseUrl?: string;
  /** Directory of the SQLite file (created 0700 when missing). */
  dataDir: string;
  /** SQLite file name inside dataDir (default `reporting.sqlite`). */
  fileName?: string;
}

/** The hit warehouse the configuration asks for: ClickHouse at `clickhouseUrl`, else SQLite under `dataDir`. */
export async function createHitStore(options: CreateHitStoreOptions): Promise<HitStore> {
  if (options.clickhouseUrl) return ClickHouseHitStore.connect({ url: options.clickhouseUrl });
  const fileName = options.fileName ?? 'reporting.sqlite';
  ensurePrivateDirectory(options.dataDir, [fileName]);
  return new SqliteHitStore({ filename: join(options.dataDir, fileName) });
}
