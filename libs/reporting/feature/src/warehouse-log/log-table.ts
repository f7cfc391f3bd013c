/**
 * A column of a log table: its name and its type in each engine (`null`: the engine's table has no
 * such column, e.g. DuckDB's one-column key or ClickHouse's row version).
 */
export type LogColumn = readonly [name: string, duckdb: string | null, clickhouse: string | null];

export type LogEngine = 'duckdb' | 'clickhouse';

/** The names of the engine's columns, in table order (an INSERT's or SELECT's column list). */
export function columnNames(columns: readonly LogColumn[], engine: LogEngine): string {
  return columnsOf(columns, engine)
    .map(([name]) => name)
    .join(', ');
}

export function duckdbCreateTable(table: string, columns: readonly LogColumn[]): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (\n${definitions(columns, 'duckdb').join(',\n')}\n)`;
}

export interface ClickHouseTableLayout {
  /** `MergeTree`, `ReplacingMergeTree(version)`, ... */
  engine: string;
  orderBy: readonly string[];
  /** Data-skipping indexes, e.g. `job_id_bloom job_id TYPE bloom_filter GRANULARITY 4`. */
  indexes?: readonly string[];
}

/** The table partitioned by the month of `time_ms` (UTC), as every log table is. */
export function clickhouseCreateTable(table: string, columns: readonly LogColumn[], layout: ClickHouseTableLayout): string {
  const items = [...definitions(columns, 'clickhouse'), ...(layout.indexes ?? []).map((index) => `  INDEX ${index}`)];
  return `CREATE TABLE IF NOT EXISTS ${table} (\n${items.join(',\n')}\n) ENGINE = ${layout.engine}
PARTITION BY toYYYYMM(fromUnixTimestamp64Milli(time_ms, 'UTC'))
ORDER BY (${layout.orderBy.join(', ')})`;
}

/** `<prefix><name>`; the prefix must be an identifier. */
export function clickhouseTableName(name: string, prefix = 'reporting_'): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) throw new Error(`ClickHouse table prefix must be an identifier: ${prefix}`);
  return `${prefix}${name}`;
}

function columnsOf(columns: readonly LogColumn[], engine: LogEngine): LogColumn[] {
  return columns.filter((column) => column[engine === 'duckdb' ? 1 : 2] !== null);
}

function definitions(columns: readonly LogColumn[], engine: LogEngine): string[] {
  return columnsOf(columns, engine).map(([name, duckdb, clickhouse]) => `  ${name.padEnd(17)} ${engine === 'duckdb' ? duckdb : clickhouse}`);
}
