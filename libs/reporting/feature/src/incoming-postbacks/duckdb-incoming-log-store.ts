import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { GroupCommit } from '@funnel/platform';
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

const TABLE = 'incoming_postback_rows';
/** The table of the first version (one row per postback, upserted by key): its rows move to TABLE once. */
const KEYED_TABLE = 'incoming_postback_log';
const COLUMNS =
  'account_id, postback_id, time_ms, source, hit_id, transaction_id, revenue, payout, ip, outcome, reason, job_id, id_funnel, id_traffic_source, updated_ms, version';

/** A row to append: the entry, and its version (0 received, 1 resolved). */
interface Versioned {
  entry: IncomingLogEntry;
  version: number;
}

/**
 * The incoming postback log in DuckDB (the embedded warehouse), append-only as on ClickHouse: a
 * postback's row is never updated in place; `received` appends it as version 0, `resolved` appends
 * the whole row again as version 1, and reads take each postback's latest version (highest version,
 * then latest `updated_ms`), so the outcome wins whichever write lands first. An append costs DuckDB
 * far less than an upsert through a primary key index, and concurrent `received` and `resolved`
 * calls share one INSERT (group commit: one commit of the warehouse for all of them). Window queries
 * prune by `time_ms` (rows arrive in about time order). Queries run on their own connection.
 */
export class DuckDbIncomingLogStore implements IncomingLogStore {
  private readonly appends: GroupCommit<Versioned>;
  private readonly reads = new Serial();

  private constructor(
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
  ) {
    this.appends = new GroupCommit((rows) => this.append(rows), { maxItems: 2048, maxWaitMs: 0, maxConcurrentWrites: 1, maxQueued: 100_000 });
  }

  static async on(database: { connect(): Promise<DuckDBConnection> }): Promise<DuckDbIncomingLogStore> {
    const writer = await database.connect();
    const reader = await database.connect();
    await writer.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (
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
      updated_ms        BIGINT NOT NULL,
      version           UTINYINT NOT NULL
    )`);
    const keyed = await writer.runAndReadAll(
      `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = '${KEYED_TABLE}' AND schema_name = current_schema()`,
    );
    if (Number(keyed.getRowObjectsJS()[0]['n']) > 0) {
      // Rows of the keyed table hold their latest outcome: version 1.
      await writer.run(`BEGIN TRANSACTION;
        INSERT INTO ${TABLE} SELECT ${COLUMNS.replace(', version', '')}, 1 FROM ${KEYED_TABLE};
        DROP TABLE ${KEYED_TABLE};
        COMMIT;`);
    }
    return new DuckDbIncomingLogStore(writer, reader);
  }

  received(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.appends.add(entries.map((entry) => ({ entry, version: 0 })));
  }

  resolved(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.appends.add(entries.map((entry) => ({ entry, version: 1 })));
  }

  /** One INSERT for the rows: each column a list parameter, unnested side by side. */
  private async append(rows: readonly Versioned[]): Promise<void> {
    const column = (value: (e: IncomingLogEntry) => string | number | null) => listValue(rows.map((row) => value(row.entry)));
    const params = [
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
      listValue(rows.map((row) => row.version)),
    ];
    const types = [
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
      'UTINYINT',
    ];
    // Nullable texts travel as "" (a list parameter starting with null loses its type): NULLIF restores them.
    const nullable = new Set([10, 11]);
    const select = types.map((type, i) => (nullable.has(i) ? `NULLIF(unnest($${i + 1}::${type}[]), '')` : `unnest($${i + 1}::${type}[])`)).join(', ');
    await this.writer.run(`INSERT INTO ${TABLE} (${COLUMNS}) SELECT ${select}`, params);
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
    // The window's latest version of each postback (incomingWhereOf binds account, start and end first), then the filters.
    const latest = `(SELECT * FROM ${TABLE} WHERE account_id = $1 AND time_ms >= $2 AND time_ms < $3
      QUALIFY row_number() OVER (PARTITION BY postback_id ORDER BY version DESC, updated_ms DESC) = 1) AS latest`;
    const total = await this.reader.runAndReadAll(`SELECT count(*)::BIGINT AS n FROM ${latest} WHERE ${where.sql}`, params);
    const rowsTotal = Number(total.getRowObjectsJS()[0]['n']);
    if (rowsTotal <= query.start) return { rows: [], rowsTotal };
    const page = await this.reader.runAndReadAll(
      `SELECT ${INCOMING_SELECT} FROM ${latest} WHERE ${where.sql}
         ORDER BY time_ms DESC, postback_id DESC LIMIT ${query.length} OFFSET ${query.start}`,
      params,
    );
    return { rows: (page.getRowObjectsJS() as unknown as StoredIncomingRow[]).map(incomingRowOf), rowsTotal };
  }

  async close(): Promise<void> {
    await Promise.all([this.appends.close(), this.reads.idle()]);
    this.writer.closeSync();
    this.reader.closeSync();
  }
}
