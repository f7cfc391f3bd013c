import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
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

const TABLE = 'webhook_log';

/**
 * The webhook log in DuckDB (the embedded warehouse): table `webhook_log`, one row per attempt in
 * about time order (window queries prune by the zone maps of `time_ms`), an index on `delivery_key`
 * (`<account>/<delivery>`) for `settled`. Writes and reads on connections of their own, each
 * running one statement at a time.
 */
export class DuckDbWebhookLogStore implements WebhookLogStore {
  private readonly writes = new Serial();
  private readonly reads = new Serial();

  private constructor(
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
    private readonly onClose: () => void,
  ) {}

  static async on(database: { connect(): Promise<DuckDBConnection> }, onClose: () => void = () => undefined): Promise<DuckDbWebhookLogStore> {
    const writer = await database.connect();
    const reader = await database.connect();
    await writer.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      delivery_key      VARCHAR NOT NULL,
      time_ms           BIGINT NOT NULL,
      account_id        VARCHAR NOT NULL,
      delivery_id       VARCHAR NOT NULL,
      event_id          VARCHAR NOT NULL,
      trigger           VARCHAR NOT NULL,
      id_webhook_config VARCHAR NOT NULL,
      id_node           VARCHAR NOT NULL,
      id_funnel         VARCHAR NOT NULL,
      hit_id            VARCHAR NOT NULL,
      attempt           INTEGER NOT NULL,
      outcome           VARCHAR NOT NULL,
      http_status       INTEGER,
      latency_ms        INTEGER NOT NULL,
      error             VARCHAR
    )`);
    await writer.run(`CREATE INDEX IF NOT EXISTS ${TABLE}_delivery ON ${TABLE} (delivery_key)`);
    return new DuckDbWebhookLogStore(writer, reader, onClose);
  }

  attempted(a: WebhookAttempt): Promise<void> {
    return this.writes.run(async () => {
      await this.writer.run(`INSERT INTO ${TABLE} VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`, [
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
    });
  }

  settled(accountId: string, deliveryId: string): Promise<'delivered' | 'failed' | undefined> {
    return this.reads.run(async () => {
      const result = await this.reader.runAndReadAll(
        `SELECT outcome FROM ${TABLE} WHERE delivery_key = $1 AND outcome IN ('delivered', 'failed') ORDER BY outcome LIMIT 1`,
        [`${accountId}/${deliveryId}`],
      );
      const row = result.getRowObjectsJS()[0] as { outcome?: string } | undefined;
      return row?.outcome as 'delivered' | 'failed' | undefined;
    });
  }

  find(query: WebhookLogQuery): Promise<WebhookLogPage> {
    return this.reads.run(async () => {
      const where = webhookWhereOf(query, (i, type) => (type === 'texts' ? `(SELECT unnest($${i}::VARCHAR[]))` : `$${i}`));
      const params = where.params.map((value) => (Array.isArray(value) ? listValue(value) : value)) as DuckDBValue[];
      const sql = webhookSummarySql(TABLE, where.sql, 'duckdb');
      const summaryRows = (await this.reader.runAndReadAll(sql.summary, params)).getRowObjectsJS() as unknown as StoredSummaryRow[];
      const failures = failuresByKey((await this.reader.runAndReadAll(sql.failures, params)).getRowObjectsJS() as never);
      const summary = summaryRows.map((row) => summaryOf(row, failures.get(`${row.id_webhook_config}\n${row.id_node}`) ?? {}));
      const total = (await this.reader.runAndReadAll(sql.total, params)).getRowObjectsJS()[0] as { n: number | bigint };
      const rowsTotal = Number(total.n);
      if (rowsTotal <= query.start) return { summary, rows: [], rowsTotal };
      const page = await this.reader.runAndReadAll(webhookPageSql(TABLE, where.sql, query), params);
      return { summary, rows: (page.getRowObjectsJS() as unknown as StoredWebhookRow[]).map(webhookRowOf), rowsTotal };
    });
  }

  async close(): Promise<void> {
    await Promise.all([this.writes.idle(), this.reads.idle()]);
    this.writer.closeSync();
    this.reader.closeSync();
    this.onClose();
  }
}

/** Runs the work given to it one at a time, in order. */
class Serial {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }

  idle(): Promise<unknown> {
    return this.tail;
  }
}
