import type { HitWarehouse } from '../hits/hit-store';
import { ClickHouseWebhookLogStore } from './clickhouse-webhook-log-store';
import { DuckDbWebhookLogStore } from './duckdb-webhook-log-store';
import type { WebhookLogStore } from './webhook-log-store';

/** The webhook log in the hit warehouse (`webhook_log` in DuckDB, `reporting_webhook_log` in ClickHouse); close it before the hit store. */
export function openWebhookLog(warehouse: HitWarehouse): Promise<WebhookLogStore> {
  return warehouse.engine === 'duckdb' ? DuckDbWebhookLogStore.on(warehouse) : ClickHouseWebhookLogStore.on(warehouse.client);
}
