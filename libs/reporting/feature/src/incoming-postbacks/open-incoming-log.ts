import type { HitWarehouse } from '../hits/hit-store';
import { ClickHouseIncomingLogStore } from './clickhouse-incoming-log-store';
import { DuckDbIncomingLogStore } from './duckdb-incoming-log-store';
import type { IncomingLogStore } from './incoming-log-store';

/** The incoming postback log in the hit warehouse (`incoming_postback_log` in DuckDB, `reporting_incoming_postback_log` in ClickHouse). Close it before the hit store. */
export function openIncomingLog(warehouse: HitWarehouse): Promise<IncomingLogStore> {
  return warehouse.engine === 'duckdb' ? DuckDbIncomingLogStore.on(warehouse) : ClickHouseIncomingLogStore.on(warehouse.client);
}
