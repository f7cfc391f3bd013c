import { GroupCommit } from '@funnel/platform';
import { duckdbAppend } from '../warehouse-log/duckdb-append';
import { DuckDbLogConnections, type DuckDbDatabase } from '../warehouse-log/duckdb-log-connections';
import { POSTBACK_LOG_QUERY_TIMEOUT_MS } from '../warehouse-log/log-query-timeout';
import { columnNames, duckdbCreateTable } from '../warehouse-log/log-table';
import { DUCKDB_PLACEHOLDER, readWindowPage } from '../warehouse-log/log-window';
import { incomingLogSql, incomingRecordOf, incomingRowOf, INCOMING_LOG_COLUMNS } from './incoming-log-sql';
import type { IncomingLogEntry, IncomingLogPage, IncomingLogQuery, IncomingLogStore } from './incoming-log-store';

const TABLE = 'incoming_postback_rows';
/** The table of the first version (one row per postback, upserted by key): its rows move to TABLE once. */
const KEYED_TABLE = 'incoming_postback_log';
const COLUMNS = columnNames(INCOMING_LOG_COLUMNS, 'duckdb');

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

  private constructor(private readonly connections: DuckDbLogConnections) {
    this.appends = new GroupCommit((rows) => this.append(rows), { maxItems: 2048, maxWaitMs: 0, maxConcurrentWrites: 1, maxQueued: 100_000 });
  }

  static async on(database: DuckDbDatabase): Promise<DuckDbIncomingLogStore> {
    const connections = await DuckDbLogConnections.open(database, [duckdbCreateTable(TABLE, INCOMING_LOG_COLUMNS)]);
    const [keyed] = await connections.write<{ n: number }>(
      `SELECT count(*)::INTEGER AS n FROM duckdb_tables() WHERE table_name = '${KEYED_TABLE}' AND schema_name = current_schema()`,
    );
    if (Number(keyed.n) > 0) {
      // Rows of the keyed table hold their latest outcome: version 1.
      await connections.write(`BEGIN TRANSACTION;
        INSERT INTO ${TABLE} SELECT ${COLUMNS.replace(', version', '')}, 1 FROM ${KEYED_TABLE};
        DROP TABLE ${KEYED_TABLE};
        COMMIT;`);
    }
    return new DuckDbIncomingLogStore(connections);
  }

  received(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.appends.add(entries.map((entry) => ({ entry, version: 0 })));
  }

  resolved(entries: readonly IncomingLogEntry[]): Promise<void> {
    return this.appends.add(entries.map((entry) => ({ entry, version: 1 })));
  }

  /** One INSERT for the rows (duckdbAppend). */
  private async append(rows: readonly Versioned[]): Promise<void> {
    const { sql, params } = duckdbAppend(
      TABLE,
      INCOMING_LOG_COLUMNS,
      rows.map((row) => incomingRecordOf(row.entry, row.version)),
    );
    await this.connections.write(sql, params);
  }

  find(query: IncomingLogQuery, timeoutMs = POSTBACK_LOG_QUERY_TIMEOUT_MS): Promise<IncomingLogPage> {
    // The window's latest version of each postback (account, start and end are parameters 1 to 3), then the filters.
    const latest = `(SELECT * FROM ${TABLE} WHERE account_id = $1 AND time_ms >= $2 AND time_ms < $3
      QUALIFY row_number() OVER (PARTITION BY postback_id ORDER BY version DESC, updated_ms DESC) = 1) AS latest`;
    const sql = incomingLogSql(latest, query, DUCKDB_PLACEHOLDER);
    return this.connections.read(sql.params, (run) => readWindowPage(run, sql, query.start, incomingRowOf), timeoutMs);
  }

  async close(): Promise<void> {
    await this.appends.close();
    await this.connections.close();
  }
}
