import { listValue, type DuckDBValue } from '@duckdb/node-api';
import { columnNames, type LogColumn } from './log-table';

/** A log row to append: its value per column name (null only in a nullable text column). */
export type LogRecord = Readonly<Record<string, string | number | null>>;

/**
 * One INSERT of `records` into a DuckDB log table of `columns`: each column a list parameter,
 * unnested side by side, so any number of rows costs one statement and one commit. The list types
 * are the columns' types; nullable texts travel as "" (a list parameter starting with null loses its
 * type) and NULLIF restores them, so such a column never holds "".
 */
export function duckdbAppend(table: string, columns: readonly LogColumn[], records: readonly LogRecord[]): { sql: string; params: DuckDBValue[] } {
  const stored = columns.filter(([, duckdb]) => duckdb !== null) as (readonly [string, string, string | null])[];
  const params: DuckDBValue[] = [];
  const select = stored.map(([name, duckdb], i) => {
    const nullable = !duckdb.includes('NOT NULL');
    const type = duckdb.replace(' NOT NULL', '');
    if (nullable && type !== 'VARCHAR') throw new Error(`duckdbAppend: nullable ${type} column ${name} is not supported`);
    params.push(listValue(records.map((record) => (nullable ? (record[name] ?? '') : record[name]) as DuckDBValue)));
    const list = `unnest($${i + 1}::${type}[])`;
    return nullable ? `NULLIF(${list}, '')` : list;
  });
  return { sql: `INSERT INTO ${table} (${columnNames(columns, 'duckdb')}) SELECT ${select.join(', ')}`, params };
}
