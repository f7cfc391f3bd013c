import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS, PostbackLogQueryTimeout } from '../postback-log/postback-log-store';
import { Serial } from '../postback-log/duckdb-postback-log-store';
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

const TABLE = 'incoming_postback_log';

/**
 * The incoming postback log in DuckDB (the embedded warehouse): one row per postback, keyed by one
 * column (`<account>/<postbackId>`, looked up through its index), so `received` is an
 * insert-if-absent and `resolved` an upsert. Window queries prune by `time_ms` (rows arrive in
 * about time order). Writes on one connection, queries on another, each one statement at a time.
 */
export class DuckDbIncomingLogStore implements IncomingLogStore {
  private readonly writes = new Serial();
  private readonly reads = new Serial();

  private constructor(
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
  ) {}

  static async on(database: { connect(): Promise<DuckDBConnection> }): Promise<DuckDbIncomingLogStore> {
    const writer = await database.connect();
    const reader = await database.connect();
    await writer.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (
      postback_key      VARCHAR PRIMARY KEY,
      account_id        VARCHAR NOT NULL,
      postback_id       VARCHAR NOT NULL,
      time_ms           BIGINT NOT NULL,
      source            VARCHAR NOT NULL,
      hit_id            VARCHAR NOT NULL,
      transaction_id    VARCHAR NOT NULL,
      revenue           VARCHAR NOT NULL,
      payout            VARCHAR NOT NULL,
      ip                VARCHAR NOT NULL,
      outcome           VARCHAR NOT NULL,
      reason            VARCHAR,
      job_id            VARCHAR,
      id_funnel         VARCHAR NOT NULL,
      id_traffic_source VARCHAR NOT NULL,
      updated_ms        BIGINT NOT NULL
    )`);
    return new DuckDbIncomingLogStore(writer, reader);
  }

  received(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.write(entries, 'ON CONFLICT DO NOTHING');
  }

  resolved(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.write(
      entries,
      `ON CONFLICT (postback_key) DO UPDATE SET outcome = excluded.outcome, reason = excluded.reason, job_id = excluded.job_id,
         payout = excluded.payout, id_funnel = excluded.id_funnel, id_traffic_source = excluded.id_traffic_source, updated_ms = excluded.updated_ms`,
    );
  }

  /** One statement per call: each column a list parameter, unnested side by side. */
  private write(entries: readonly IncomingLogEntry[], onConflict: string): Promise<void> {
    // One row per key in a statement (DuckDB refuses to touch a key twice in one upsert): the last entry of a key wins.
    const unique = [...new Map(entries.map((e) => [keyOf(e), e])).values()];
    if (!unique.length) return Promise.resolve();
    const column = (value: (e: IncomingLogEntry) => string | number | null) => listValue(unique.map(value));
    const params = [
      column(keyOf),
      column((e) => e.accountId),
      column((e) => e.postbackId),
      column((e) => e.timeMs),
      column((e) => e.source),
      column((e) => e.hitId),
      column((e) => e.transactionId),
      column((e) => e.revenue),
      column((e) => e.payout),
      column((e) => e.ip),
      column((e) => e.outcome),
      column((e) => e.reason ?? ''),
      column((e) => e.jobId ?? ''),
      column((e) => e.idFunnel),
      column((e) => e.idTrafficSource),
      column((e) => e.updatedMs),
    ];
    const types = [
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'BIGINT',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'VARCHAR',
      'BIGINT',
    ];
    // Nullable texts travel as "" (a list parameter starting with null loses its type): NULLIF restores them.
    const nullable = new Set([11, 12]);
    const select = types.map((type, i) => (nullable.has(i) ? `NULLIF(unnest($${i + 1}::${type}[]), '')` : `unnest($${i + 1}::${type}[])`)).join(', ');
    return this.writes.run(async () => {
      await this.writer.run(`INSERT INTO ${TABLE} SELECT ${select} ${onConflict}`, params);
    });
  }

  find(query: IncomingLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IncomingLogPage> {
    const deadline = Date.now() + timeoutMs;
    return this.reads.run(async () => {
      if (Date.now() >= deadline) throw new PostbackLogQueryTimeout(timeoutMs);
      let interrupted = false;
      const timer = setTimeout(() => {
        interrupted = true;
        this.reader.interrupt();
      }, deadline - Date.now());
      try {
        const page = await this.page(query);
        if (interrupted) throw new PostbackLogQueryTimeout(timeoutMs);
        return page;
      } catch (error) {
        throw interrupted ? new PostbackLogQueryTimeout(timeoutMs) : error;
      } finally {
        clearTimeout(timer);
      }
    });
  }

  private async page(query: IncomingLogQuery): Promise<IncomingLogPage> {
    const where = incomingWhereOf(query, (i) => `$${i}`);
    const params = where.params as DuckDBValue[];
    const total = await this.reader.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${TABLE} WHERE ${where.sql}`, params);
    const rowsTotal = Number(total.getRowObjectsJS()[0]['n']);
    if (rowsTotal <= query.start) return { rows: [], rowsTotal };
    const page = await this.reader.runAndReadAll(
      `SELECT ${INCOMING_SELECT} FROM ${TABLE} WHERE ${where.sql}
         ORDER BY time_ms DESC, postback_id DESC LIMIT ${query.length} OFFSET ${query.start}`,
      params,
    );
    return { rows: (page.getRowObjectsJS() as unknown as StoredIncomingRow[]).map(incomingRowOf), rowsTotal };
  }

  async close(): Promise<void> {
    await Promise.all([this.writes.idle(), this.reads.idle()]);
    this.writer.closeSync();
    this.reader.closeSync();
  }
}

const keyOf = (e: { accountId: string; postbackId: string }) => `${e.accountId}/${e.postbackId}`;
