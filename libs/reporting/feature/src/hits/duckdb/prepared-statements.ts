import type { DuckDBConnection, DuckDBMaterializedResult, DuckDBPreparedStatement, DuckDBValue } from '@duckdb/node-api';

/** Statements kept prepared per connection at most (the oldest prepared is dropped first). */
const PREPARED_PER_CONNECTION = 32;

/**
 * Statements prepared once per connection and run again with new parameters. `DuckDBConnection.run`
 * with parameters splits the text into statements, prepares the last and runs it: three trips to
 * DuckDB's threads; a statement prepared before takes one (bind and run). Each connection here runs
 * one statement at a time (the store's writer, or a read connection held by one read), so a prepared
 * statement is never bound by two callers at once. A connection drops its prepared statements when it
 * is closed.
 */
export class PreparedStatements {
  private readonly byConnection = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

  /** Runs `sql` (one statement) with `params` on `connection`, fully materialized. */
  async run(connection: DuckDBConnection, sql: string, params: readonly DuckDBValue[]): Promise<DuckDBMaterializedResult> {
    let statements = this.byConnection.get(connection);
    if (!statements) {
      statements = new Map();
      this.byConnection.set(connection, statements);
    }
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = await connection.prepare(sql);
      if (statements.size >= PREPARED_PER_CONNECTION) {
        const [oldest, statement] = statements.entries().next().value!;
        statements.delete(oldest);
        statement.destroySync();
      }
      statements.set(sql, prepared);
    }
    prepared.bind([...params]);
    return (await prepared.run()) as DuckDBMaterializedResult;
  }
}

/** The rows of a materialized result, chunk by chunk (no further trip to DuckDB's threads). */
export function materializedRows(result: DuckDBMaterializedResult): DuckDBValue[][] {
  const rows: DuckDBValue[][] = [];
  for (let index = 0; index < result.chunkCount; index++) rows.push(...result.getChunk(index).getRows());
  return rows;
}
