import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { DuckDBInstance } from '@duckdb/node-api';
import { ensurePrivateDirectory } from '@funnel/eventstore';
import { ClickHousePostbackLogStore } from './clickhouse-postback-log-store';
import { DuckDbPostbackLogStore } from './duckdb-postback-log-store';
import type { PostbackLogStore } from './postback-log-store';

export interface CreatePostbackLogStoreOptions {
  /** ClickHouse HTTP URL (`CLICKHOUSE_URL`); when absent the log is a DuckDB file under dataDir. */
  clickhouseUrl?: string;
  /** Directory of the DuckDB file (created 0700 when missing). */
  dataDir: string;
  /** DuckDB file name inside dataDir. */
  fileName: string;
}

/**
 * The postback log the configuration asks for, on a connection of its own: ClickHouse at
 * `clickhouseUrl` (table `reporting_postback_log`), else DuckDB in `dataDir/fileName`. Where the
 * hit warehouse's own handle is at hand, `DuckDbPostbackLogStore.on(instance)` and
 * `ClickHousePostbackLogStore.on(client)` put the table on it instead.
 */
export async function createPostbackLogStore(options: CreatePostbackLogStoreOptions): Promise<PostbackLogStore> {
  if (options.clickhouseUrl) {
    const client = createClient({ url: options.clickhouseUrl, request_timeout: 60_000 });
    try {
      return await ClickHousePostbackLogStore.on(client, { ownsClient: true });
    } catch (error) {
      await client.close();
      throw error;
    }
  }
  ensurePrivateDirectory(options.dataDir, [options.fileName]);
  const instance = await DuckDBInstance.create(join(options.dataDir, options.fileName));
  try {
    return await DuckDbPostbackLogStore.on(instance, () => instance.closeSync());
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}
