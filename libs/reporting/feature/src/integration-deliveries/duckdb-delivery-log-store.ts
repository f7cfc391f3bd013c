import { DuckDbLogConnections, type DuckDbDatabase } from '../warehouse-log/duckdb-log-connections';
import { duckdbAppend } from '../warehouse-log/duckdb-append';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { duckdbCreateTable } from '../warehouse-log/log-table';
import { DUCKDB_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { DELIVERY_LOG_COLUMNS, deliveryLogSql, deliveryRecordOf, deliveryRowOf } from './delivery-log-sql';
import type { IntegrationDeliveryEntry, IntegrationDeliveryLogPage, IntegrationDeliveryLogQuery, IntegrationDeliveryLogStore } from './delivery-log-store';

const TABLE = 'integration_delivery_log';

/**
 * The integration deliveries log in DuckDB (the embedded warehouse): table `integration_delivery_log`,
 * append-only, one INSERT per call's rows (a batch of up to the provider's limit), in about time
 * order (window queries prune by the zone maps of `time_ms`). Writes and reads on connections of
 * their own.
 */
export class DuckDbIntegrationDeliveryLogStore implements IntegrationDeliveryLogStore {
  private constructor(private readonly connections: DuckDbLogConnections) {}

  static async on(database: DuckDbDatabase): Promise<DuckDbIntegrationDeliveryLogStore> {
    return new DuckDbIntegrationDeliveryLogStore(await DuckDbLogConnections.open(database, [duckdbCreateTable(TABLE, DELIVERY_LOG_COLUMNS)]));
  }

  async logged(entries: readonly IntegrationDeliveryEntry[]): Promise<void> {
    if (!entries.length) return;
    const { sql, params } = duckdbAppend(TABLE, DELIVERY_LOG_COLUMNS, entries.map(deliveryRecordOf));
    await this.connections.write(sql, params);
  }

  find(query: IntegrationDeliveryLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IntegrationDeliveryLogPage> {
    const sql = deliveryLogSql(TABLE, query, DUCKDB_PLACEHOLDER);
    return this.connections.read(sql.params, (run) => readWindowPage(run, sql, query.start, deliveryRowOf), timeoutMs);
  }

  async close(): Promise<void> {
    await this.connections.close();
  }
}
