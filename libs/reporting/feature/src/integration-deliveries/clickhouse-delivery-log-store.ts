import type { ClickHouseClient } from '@clickhouse/client';
import { openClickHouseLogTable, readClickHouse } from '../warehouse-log/clickhouse-log';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { CLICKHOUSE_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { DELIVERY_LOG_COLUMNS, deliveryLogSql, deliveryRecordOf, deliveryRowOf } from './delivery-log-sql';
import type { IntegrationDeliveryEntry, IntegrationDeliveryLogPage, IntegrationDeliveryLogQuery, IntegrationDeliveryLogStore } from './delivery-log-store';

/**
 * The integration deliveries log on ClickHouse: `<prefix>integration_delivery_log`, a MergeTree
 * ordered by (account_id, time_ms, job_id), partitioned by month, one insert per call's rows (logged
 * by the one process that made the call); a bloom filter on `job_id` serves the job filter.
 */
export class ClickHouseIntegrationDeliveryLogStore implements IntegrationDeliveryLogStore {
  private constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
  ) {}

  static async on(client: ClickHouseClient, options: { tablePrefix?: string } = {}): Promise<ClickHouseIntegrationDeliveryLogStore> {
    const table = await openClickHouseLogTable(client, 'integration_delivery_log', options.tablePrefix, DELIVERY_LOG_COLUMNS, {
      engine: 'MergeTree',
      orderBy: ['account_id', 'time_ms', 'job_id'],
      indexes: ['job_bloom job_id TYPE bloom_filter GRANULARITY 4'],
    });
    return new ClickHouseIntegrationDeliveryLogStore(client, table);
  }

  async logged(entries: readonly IntegrationDeliveryEntry[]): Promise<void> {
    if (!entries.length) return;
    await this.client.insert({ table: this.table, format: 'JSONEachRow', values: entries.map(deliveryRecordOf) });
  }

  find(query: IntegrationDeliveryLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IntegrationDeliveryLogPage> {
    const sql = deliveryLogSql(this.table, query, CLICKHOUSE_PLACEHOLDER);
    return readClickHouse(this.client, sql.params, (run) => readWindowPage(run, sql, query.start, deliveryRowOf), timeoutMs);
  }

  /** The client is the hit store's: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
