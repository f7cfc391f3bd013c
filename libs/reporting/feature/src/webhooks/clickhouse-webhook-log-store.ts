import type { ClickHouseClient } from '@clickhouse/client';
import {
  summaryOf,
  webhookRowOf,
  webhookWhereOf,
  type StoredSummaryRow,
  type StoredWebhookRow,
  type WebhookAttempt,
  type WebhookLogPage,
  type WebhookLogQuery,
  type WebhookLogStore,
} from './webhook-log-store';
import { failuresByKey, webhookPageSql, webhookSummarySql } from './webhook-log-sql';

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
    const prefix = options.tablePrefix ?? 'reporting_';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) throw new Error(`ClickHouse table prefix must be an identifier: ${prefix}`);
    const table = `${prefix}webhook_log`;
    await client.command({
      query: `CREATE TABLE IF NOT EXISTS ${table} (
        time_ms           Int64,
        account_id        String,
        delivery_id       String,
        event_id          String,
        trigger           LowCardinality(String),
        id_webhook_config String,
        id_node           String,
        id_funnel         String,
        hit_id            String,
        attempt           UInt32,
        outcome           LowCardinality(String),
        http_status       Nullable(UInt16),
        latency_ms        UInt32,
        error             Nullable(String),
        INDEX delivery_bloom delivery_id TYPE bloom_filter GRANULARITY 4
      ) ENGINE = MergeTree
      PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(time_ms, 'UTC'))
      ORDER BY (account_id, time_ms, delivery_id, attempt)`,
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

  async find(query: WebhookLogQuery): Promise<WebhookLogPage> {
    const where = webhookWhereOf(query, (n, type) => `{p${n}:${type === 'text' ? 'String' : type === 'int' ? 'Int64' : 'Array(String)'}}`);
    const query_params = Object.fromEntries(where.params.map((value, i) => [`p${i + 1}`, value]));
    const run = async <T>(sql: string) => (await this.client.query({ query: sql, query_params, format: 'JSONEachRow' })).json<T>();
    const sql = webhookSummarySql(this.table, where.sql, 'clickhouse');
    const summaryRows = await run<StoredSummaryRow>(sql.summary);
    const failures = failuresByKey(await run(sql.failures));
    const summary = summaryRows.map((row) => summaryOf(row, failures.get(`${row.id_webhook_config}\n${row.id_node}`) ?? {}));
    const rowsTotal = Number((await run<{ n: number | string }>(sql.total))[0]?.n ?? 0);
    if (rowsTotal <= query.start) return { summary, rows: [], rowsTotal };
    const rows = await run<StoredWebhookRow>(webhookPageSql(this.table, where.sql, query));
    return { summary, rows: rows.map(webhookRowOf), rowsTotal };
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }
}
