import { DuckDbLogConnections, type DuckDbDatabase } from '../warehouse-log/duckdb-log-connections';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { duckdbCreateTable } from '../warehouse-log/log-table';
import { DUCKDB_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { readWebhookSummary, WEBHOOK_LOG_COLUMNS, webhookLogSql, webhookRowOf } from './webhook-log-sql';
import type { WebhookAttempt, WebhookLogPage, WebhookLogQuery, WebhookLogStore } from './webhook-log-store';

const TABLE = 'webhook_log';

/**
 * The webhook log in DuckDB (the embedded warehouse): table `webhook_log`, one row per attempt in
 * about time order (window queries prune by the zone maps of `time_ms`), an index on `delivery_key`
 * (`<account>/<delivery>`) for `settled`. Writes and reads on connections of their own, each
 * running one statement at a time.
 */
export class DuckDbWebhookLogStore implements WebhookLogStore {
  private constructor(
    private readonly connections: DuckDbLogConnections,
    private readonly onClose: () => void,
  ) {}

  static async on(database: DuckDbDatabase, onClose: () => void = () => undefined): Promise<DuckDbWebhookLogStore> {
    const connections = await DuckDbLogConnections.open(database, [
      duckdbCreateTable(TABLE, WEBHOOK_LOG_COLUMNS),
      `CREATE INDEX IF NOT EXISTS ${TABLE}_delivery ON ${TABLE} (delivery_key)`,
    ]);
    return new DuckDbWebhookLogStore(connections, onClose);
  }

  async attempted(a: WebhookAttempt): Promise<void> {
    await this.connections.write(`INSERT INTO ${TABLE} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
      `${a.accountId}/${a.deliveryId}`,
      a.timeMs,
      a.accountId,
      a.deliveryId,
      a.eventId,
      a.trigger,
      a.idWebhookConfig,
      a.idNode,
      a.idFunnel,
      a.hitId,
      a.attempt,
      a.outcome,
      a.httpStatus,
      Math.round(a.latencyMs),
      a.error,
    ]);
  }

  settled(accountId: string, deliveryId: string): Promise<'delivered' | 'failed' | undefined> {
    return this.connections.read([`${accountId}/${deliveryId}`], async (run) => {
      const [row] = await run<{ outcome: 'delivered' | 'failed' }>(
        `SELECT outcome FROM ${TABLE} WHERE delivery_key = $1 AND outcome IN ('delivered', 'failed') ORDER BY outcome LIMIT 1`,
      );
      return row?.outcome;
    });
  }

  find(query: WebhookLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<WebhookLogPage> {
    const sql = webhookLogSql(TABLE, query, DUCKDB_PLACEHOLDER, 'duckdb');
    return this.connections.read(
      sql.params,
      async (run) => {
        const summary = await readWebhookSummary(run, sql);
        return { summary, ...(await readWindowPage(run, sql, query.start, webhookRowOf)) };
      },
      timeoutMs,
    );
  }

  async close(): Promise<void> {
    await this.connections.close();
    this.onClose();
  }
}
