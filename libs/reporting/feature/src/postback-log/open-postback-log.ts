import type { HitWarehouse } from '../hits/hit-store';
import { ClickHousePostbackLogStore } from './clickhouse-postback-log-store';
import { DuckDbPostbackLogStore } from './duckdb-postback-log-store';
import type { PostbackLogStore } from './postback-log-store';

/**
 * The postback log in the hit warehouse: table `postback_log` on connections of the DuckDB
 * warehouse's own instance (one process per file), or `reporting_postback_log` through the
 * ClickHouse store's client. Close it before the hit store: it closes its own connections only.
 */
export function openPostbackLog(warehouse: HitWarehouse): Promise<PostbackLogStore> {
  return warehouse.engine === 'duckdb' ? DuckDbPostbackLogStore.on(warehouse) : ClickHousePostbackLogStore.on(warehouse.client);
}
