import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { PostbackLogRow } from '@funnel/contracts';
import {
  statusAfter,
  type DecidedPostback,
  type PostbackAttempt,
  type PostbackLogPage,
  type PostbackLogQuery,
  type PostbackLogStore,
} from './postback-log-store';
import { logRowOf, whereOf, type StoredLogRow } from './postback-log-sql';

const TABLE = 'postback_log';

/**
 * The postback log in DuckDB (the embedded warehouse): one row per postback, its primary key
 * (account_id, job_id, row_index) making `decided` an insert-if-absent and `attempted` an indexed
 * update. The table holds one row per decided postback (far fewer than hits), so the key's index
 * costs little; window queries prune by time through the zone maps of `time_ms`.
 *
 * Statements on the connection run one at a time (a DuckDB connection takes one query at once;
 * deliveries record their attempts concurrently).
 */
export class DuckDbPostbackLogStore implements PostbackLogStore {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly onClose: () => void,
  ) {}

  /** The log on an open connection (the warehouse's); `onClose` releases what the caller opened for it. */
  static async on(connection: DuckDBConnection, onClose: () => void = () => undefined): Promise<DuckDbPostbackLogStore> {
    await connection.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      account_id        VARCHAR NOT NULL,
      job_id            VARCHAR NOT NULL,
      row_index         INTEGER NOT NULL,
      time_ms           BIGINT NOT NULL,
      hit_id            VARCHAR NOT NULL,
      id_traffic_source VARCHAR NOT NULL,
      id_funnel         VARCHAR NOT NULL,
      url               VARCHAR NOT NULL,
      kind              VARCHAR NOT NULL,
      status            VARCHAR NOT NULL,
      attempts          INTEGER NOT NULL,
      last_error        VARCHAR,
      updated_ms        BIGINT NOT NULL,
      PRIMARY KEY (account_id, job_id, row_index)
    )`);
    return new DuckDbPostbackLogStore(connection, onClose);
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  decided(postbacks: readonly DecidedPostback[]): Promise<void> {
    if (!postbacks.length) return Promise.resolve();
    const values: DuckDBValue[] = [];
    const tuples = postbacks.map((p, i) => {
      values.push(p.accountId, p.jobId, p.rowIndex, p.timeMs, p.hitId, p.idTrafficSource, p.idFunnel, p.url, p.kind, p.status, p.timeMs);
      const at = i * 11;
      return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6}, $${at + 7}, $${at + 8}, $${at + 9}, $${at + 10}, 0, NULL, $${at + 11})`;
    });
    return this.serial(async () => {
      await this.connection.run(`INSERT INTO ${TABLE} VALUES ${tuples.join(', ')} ON CONFLICT DO NOTHING`, values);
    });
  }

  attempted(a: PostbackAttempt): Promise<void> {
    return this.serial(async () => {
      await this.connection.run(
        `UPDATE ${TABLE} SET status = $1, attempts = $2, last_error = $3, updated_ms = $4
         WHERE account_id = $5 AND job_id = $6 AND row_index = $7 AND status <> 'delivered' AND attempts <= $2`,
        [statusAfter(a.outcome), a.attempt, a.error, a.atMs, a.accountId, a.jobId, a.rowIndex],
      );
    });
  }

  find(query: PostbackLogQuery): Promise<PostbackLogPage> {
    const where = whereOf(query, (i) => `$${i}`);
    const params = where.params as DuckDBValue[];
    return this.serial(async () => {
      const total = await this.connection.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${TABLE} WHERE ${where.sql}`, params);
      const rowsTotal = Number(total.getRowObjectsJS()[0]['n']);
      if (rowsTotal <= query.start) return { rows: [], rowsTotal };
      const page = await this.connection.runAndReadAll(
        `SELECT time_ms, job_id, row_index, hit_id, id_traffic_source, id_funnel, url, kind, status, attempts, last_error, updated_ms
         FROM ${TABLE} WHERE ${where.sql}
         ORDER BY time_ms DESC, job_id DESC, row_index DESC LIMIT ${query.length} OFFSET ${query.start}`,
        params,
      );
      const rows: PostbackLogRow[] = (page.getRowObjectsJS() as unknown as StoredLogRow[]).map(logRowOf);
      return { rows, rowsTotal };
    });
  }

  async close(): Promise<void> {
    await this.queue;
    this.connection.closeSync();
    this.onClose();
  }
}
