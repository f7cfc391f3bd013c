import type Database from 'better-sqlite3';

/** Rows per statement: fewer pay more statements, more pay a longer statement to compile and bind (measured best at about 50). */
export const ROWS_PER_INSERT = 50;

/**
 * An INSERT of many rows in few statements: `INSERT ... VALUES (?, ?), (?, ?), ... <tail>`, each
 * statement holding up to ROWS_PER_INSERT rows, its values bound as parameters. About 1 µs a row
 * where one statement per row costs about 2 and an `INSERT ... SELECT ... FROM json_each(?)` of one
 * JSON text about 1.5 (100,000 hit keys in 1,000-key transactions). A statement is prepared once per
 * row count used.
 */
export class MultiRowInsert<Row> {
  private readonly statements = new Map<number, Database.Statement<unknown[]>>();
  /** The parameters of the statement being run, refilled for each. */
  private readonly params: unknown[] = [];

  constructor(
    private readonly db: Database.Database,
    /** Up to VALUES, e.g. `INSERT OR IGNORE INTO t (a, b, c)`. */
    private readonly head: string,
    /** Parameters per row. */
    private readonly width: number,
    /** After the values, e.g. `ON CONFLICT DO UPDATE SET ...` ('' for none). */
    private readonly tail: string,
    /** Pushes a row's `width` values, in column order, onto `params`. */
    private readonly valuesOf: (row: Row, params: unknown[]) => void,
  ) {}

  /** Inserts the rows (in the caller's transaction, if any); the rows changed. */
  run(rows: readonly Row[]): number {
    let changes = 0;
    const params = this.params;
    for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
      const end = Math.min(rows.length, start + ROWS_PER_INSERT);
      params.length = 0;
      for (let i = start; i < end; i++) this.valuesOf(rows[i], params);
      if (params.length !== (end - start) * this.width) throw new Error(`each row takes ${this.width} values`);
      changes += this.statement(end - start).run(params).changes;
    }
    params.length = 0;
    return changes;
  }

  private statement(rows: number): Database.Statement<unknown[]> {
    let statement = this.statements.get(rows);
    if (!statement) {
      const row = `(${new Array<string>(this.width).fill('?').join(', ')})`;
      statement = this.db.prepare<unknown[]>(`${this.head} VALUES ${new Array<string>(rows).fill(row).join(', ')} ${this.tail}`);
      this.statements.set(rows, statement);
    }
    return statement;
  }
}
