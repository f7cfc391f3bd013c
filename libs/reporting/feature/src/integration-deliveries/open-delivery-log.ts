import type { HitWarehouse } from '../hits/hit-store';
import { ClickHouseIntegrationDeliveryLogStore } from './clickhouse-delivery-log-store';
import type { IntegrationDeliveryLogStore } from './delivery-log-store';
import { DuckDbIntegrationDeliveryLogStore } from './duckdb-delivery-log-store';

/** The integration deliveries log in the hit warehouse (`integration_delivery_log` in DuckDB, `reporting_integration_delivery_log` in ClickHouse). Close it before the hit store. */
export function openIntegrationDeliveryLog(warehouse: HitWarehouse): Promise<IntegrationDeliveryLogStore> {
  return warehouse.engine === 'duckdb' ? DuckDbIntegrationDeliveryLogStore.on(warehouse) : ClickHouseIntegrationDeliveryLogStore.on(warehouse.client);
}
