import type { ClickHouseClient } from '@clickhouse/client';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS, PostbackLogQueryTimeout } from '../postback-log/postback-log-store';
import {
  INCOMING_SELECT,
  incomingRowOf,
  incomingWhereOf,
  type IncomingLogEntry,
  type IncomingLogPage,
  type IncomingLogQuery,
  type IncomingLogStore,
  type StoredIncomingRow,
} from './incoming-log-store';

/** ClickHouse's error code for a query stopped at `max_execution_time`. */
const TIMEOUT_EXCEEDED = '159';

/**
 * The incoming postback log on ClickHouse: `<prefix>incoming_postback_log`, a
 * ReplacingMergeTree(version) ordered by (account_id, time_ms, postback_id); reads use FINAL. A row is
 * never updated in place: `received` inserts version 0, `resolved` the whole row again as version 1,
 * so the outcome wins whichever write lands first.
 */
export class ClickHouseIncomingLogStore implements IncomingLogStore {
  private constructor(
    private readonly client: ClickHouseClient,
    private readonly table: string,
  ) {}

  static async on(client: ClickHouseClient, options: { tablePrefix?: string } = {}): Promise<ClickHouseIncomingLogStore> {
    const prefix = options.tablePrefix ?? 'reporting_';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) throw new Error(`ClickHouse table prefix must be an identifier: ${prefix}`);
    const table = `${prefix}incoming_postback_log`;
    await client.command({
      query: `CREATE TABLE IF NOT EXISTS ${table} (
        account_id        String,
        postback_id       String,
        time_ms           Int64,
        source            LowCardinality(String),
        hit_id            String,
        transaction_id    String,
        revenue           String,
        payout            String,
        ip                String,
        outcome           LowCardinality(String),
        reason            Nullable(String),
        job_id            Nullable(String),
        id_funnel         String,
        id_traffic_source String,
        updated_ms        Int64,
        version           UInt8
      ) ENGINE = ReplacingMergeTree(version)
      PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(time_ms, 'UTC'))
      ORDER BY (account_id, time_ms, postback_id)`,
    });
    return new ClickHouseIncomingLogStore(client, table);
  }

  received(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.insert(entries, 0);
  }

  resolved(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.insert(entries, 1);
  }

  private async insert(entries: readonly IncomingLogEntry[], version: number): Promise<void> {
    if (!entries.length) return;
    await this.client.insert({
      table: this.table,
      format: 'JSONEachRow',
      values: entries.map((e) => ({
        account_id: e.accountId,
        postback_id: e.postbackId,
        time_ms: e.timeMs,
        source: e.source,
        hit_id: e.hitId,
        transaction_id: e.transactionId,
        revenue: e.revenue,
        payout: e.payout,
        ip: e.ip,
        outcome: e.outcome,
        reason: e.reason,
        job_id: e.jobId,
        id_funnel: e.idFunnel,
        id_traffic_source: e.idTrafficSource,
        updated_ms: e.updatedMs,
        version,
      })),
    });
  }

  async find(query: IncomingLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IncomingLogPage> {
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    try {
      const where = incomingWhereOf(query, (n, type) => `{p${n}:${type}}`);
      const query_params = Object.fromEntries(where.params.map((value, i) => [`p${i + 1}`, value]));
      const clickhouse_settings = { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)), cancel_http_readonly_queries_on_client_close: 1 } as const;
      const run = async <T>(sql: string) =>
        (await this.client.query({ query: sql, query_params, format: 'JSONEachRow', abort_signal: abort.signal, clickhouse_settings })).json<T>();
      const total = await run<{ n: string }>(`SELECT count() AS n FROM ${this.table} FINAL WHERE ${where.sql}`);
      const rowsTotal = Number(total[0]?.n ?? 0);
      if (rowsTotal <= query.start) return { rows: [], rowsTotal };
      const rows = await run<StoredIncomingRow>(
        `SELECT ${INCOMING_SELECT} FROM ${this.table} FINAL WHERE ${where.sql}
          ORDER BY time_ms DESC, postback_id DESC LIMIT ${query.length} OFFSET ${query.start}`,
      );
      return { rows: rows.map(incomingRowOf), rowsTotal };
    } catch (error) {
      if (abort.signal.aborted || (error as { code?: string }).code === TIMEOUT_EXCEEDED) throw new PostbackLogQueryTimeout(timeoutMs);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** The client is the hit store's: it closes it. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
