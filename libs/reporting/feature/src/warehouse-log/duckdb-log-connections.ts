import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { PostbackLogQueryTimeout } from './log-query-timeout';
import type { RunSql } from './log-window';
import { Serial } from './serial';

/** What opens connections to a DuckDB database: an instance, or the hit warehouse's handle. */
export interface DuckDbDatabase {
  connect(): Promise<DuckDBConnection>;
}

/**
 * A log table's two connections to the DuckDB warehouse: writes on one, queries on the other, each
 * running its statements one at a time (a DuckDB connection takes one query at once). A query past
 * its time limit is interrupted on its own connection, never a write.
 */
export class DuckDbLogConnections {
  private readonly writes = new Serial();
  private readonly reads = new Serial();

  private constructor(
    private readonly writer: DuckDBConnection,
    private readonly reader: DuckDBConnection,
  ) {}

  /** Opens both connections and runs `setup` (CREATE TABLE ...) on the writer. */
  static async open(database: DuckDbDatabase, setup: readonly string[]): Promise<DuckDbLogConnections> {
    const writer = await database.connect();
    const reader = await database.connect();
    for (const sql of setup) await writer.run(sql);
    return new DuckDbLogConnections(writer, reader);
  }

  /** A statement on the writer, after the writes before it; answers its rows. */
  write<T = Record<string, unknown>>(sql: string, params?: DuckDBValue[]): Promise<T[]> {
    return this.writes.run(() => rowsOf<T>(this.writer, sql, params));
  }

  /**
   * `work` on the reader, after the reads before it; `run` binds `params` to each statement. With
   * `timeoutMs` (waiting for the connection included), the reader is interrupted at the deadline and
   * the read rejects with PostbackLogQueryTimeout.
   */
  read<T>(params: readonly DuckDBValue[], work: (run: RunSql) => Promise<T>, timeoutMs?: number): Promise<T> {
    const run: RunSql = (sql) => rowsOf(this.reader, sql, [...params]);
    if (timeoutMs === undefined) return this.reads.run(() => work(run));
    const deadline = Date.now() + timeoutMs;
    return this.reads.run(async () => {
      if (Date.now() >= deadline) throw new PostbackLogQueryTimeout(timeoutMs);
      let interrupted = false;
      const timer = setTimeout(() => {
        interrupted = true;
        this.reader.interrupt();
      }, deadline - Date.now());
      try {
        const result = await work(run);
        // Done only after the deadline: past the limit all the same.
        if (interrupted) throw new PostbackLogQueryTimeout(timeoutMs);
        return result;
      } catch (error) {
        throw interrupted ? new PostbackLogQueryTimeout(timeoutMs) : error;
      } finally {
        clearTimeout(timer);
      }
    });
  }

  /** Waits for the statements under way, then closes both connections (not the database). */
  async close(): Promise<void> {
    await Promise.all([this.writes.idle(), this.reads.idle()]);
    this.writer.closeSync();
    this.reader.closeSync();
  }
}

async function rowsOf<T>(connection: DuckDBConnection, sql: string, params?: DuckDBValue[]): Promise<T[]> {
  return (await connection.runAndReadAll(sql, params)).getRowObjectsJS() as unknown as T[];
}
