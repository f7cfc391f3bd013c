import type { ClickHouseClient } from '@clickhouse/client';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { openClickHouseLogTable, readClickHouse } from '../warehouse-log/clickhouse-log';
import { CLICKHOUSE_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { readWebhookSummary, WEBHOOK_LOG_COLUMNS, webhookLogSql, webhookRowOf } from './webhook-log-sql';
import type { WebhookAttempt, WebhookLogPage, WebhookLogQuery, WebhookLogStore } from './webhook-log-store';

export interface ClickHouseWebhookLogOptions {
  /** Table name prefix (default `reporting_`, as the hit store's); tests use their own. */
  tablePrefix?: string;
  ownsClient?: boolean;
}

/**
 * The webhook log on ClickHouse: `<prefix>webhook_log`, a MergeTree ordered by (account_id, time_ms,
 * delivery_id, attempt), partitioned by month, one row per attempt, inserted once (an attempt is
 * logged by the one process that made it); a bloom filter on `delivery_id` serves `settled`.
 */
export class ClickHouseWebhookLogStore implements WebhookLogStore {
  private constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
    private readonly ownsClient: boolean,
  ) {}

  static async on(client: ClickHouseClient, options: ClickHouseWebhookLogOptions = {}): Promise<ClickHouseWebhookLogStore> {
    const table = await openClickHouseLogTable(client, 'webhook_log', options.tablePrefix, WEBHOOK_LOG_COLUMNS, {
      engine: 'MergeTree',
      orderBy: ['account_id', 'time_ms', 'delivery_id', 'attempt'],
      indexes: ['delivery_bloom delivery_id TYPE bloom_filter GRANULARITY 4'],
    });
    return new ClickHouseWebhookLogStore(client, table, options.ownsClient ?? false);
  }

  async attempted(a: WebhookAttempt): Promise<void> {
    await this.client.insert({
      table: this.table,
      format: 'JSONEachRow',
      values: [
        {
          time_ms: a.timeMs,
          account_id: a.accountId,
          delivery_id: a.deliveryId,
          event_id: a.eventId,
          trigger: a.trigger,
          id_webhook_config: a.idWebhookConfig,
          id_node: a.idNode,
          id_funnel: a.idFunnel,
          hit_id: a.hitId,
          attempt: a.attempt,
          outcome: a.outcome,
          http_status: a.httpStatus,
          latency_ms: Math.round(a.latencyMs),
          error: a.error,
        },
      ],
    });
  }

  async settled(accountId: string, deliveryId: string): Promise<'delivered' | 'failed' | undefined> {
    const result = await this.client.query({
      query: `SELECT outcome FROM ${this.table} WHERE account_id = {account:String} AND delivery_id = {delivery:String} AND outcome IN ('delivered', 'failed') ORDER BY outcome LIMIT 1`,
      query_params: { account: accountId, delivery: deliveryId },
      format: 'JSONEachRow',
    });
    const rows = await result.json<{ outcome: string }>();
    return rows[0]?.outcome as 'delivered' | 'failed' | undefined;
  }

  find(query: WebhookLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<WebhookLogPage> {
    const sql = webhookLogSql(this.table, query, CLICKHOUSE_PLACEHOLDER, 'clickhouse');
    return readClickHouse(
      this.client,
      sql.params,
      async (run) => {
        const summary = await readWebhookSummary(run, sql);
        return { summary, ...(await readWindowPage(run, sql, query.start, webhookRowOf)) };
      },
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
