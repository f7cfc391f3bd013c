import {
  BIGINT,
  BOOLEAN,
  DECIMAL,
  DuckDBDataChunk,
  LIST,
  UINTEGER,
  UTINYINT,
  VARCHAR,
  decimalValue,
  listValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { toMicros } from '@funnel/reporting-domain';
import type { WarehouseRow, WarehouseValue } from '../hit-row';

/** How a column's value is handed to DuckDB: its type and the conversion of a WarehouseValue. */
interface ColumnWriter {
  type: DuckDBType;
  value(value: WarehouseValue): DuckDBValue;
}

const money = (value: WarehouseValue) => decimalValue(toMicros(String(value)), 18, 6);

/** The writers by DuckDB type, as WAREHOUSE_COLUMNS spell them (up to a DEFAULT or NOT NULL). */
const WRITERS: Readonly<Record<string, ColumnWriter>> = {
  VARCHAR: { type: VARCHAR, value: (value) => String(value) },
  BIGINT: { type: BIGINT, value: (value) => BigInt(value as number) },
  BOOLEAN: { type: BOOLEAN, value: (value) => Boolean(value) },
  UTINYINT: { type: UTINYINT, value: (value) => Number(value) },
  UINTEGER: { type: UINTEGER, value: (value) => Number(value) },
  'DECIMAL(18,6)': { type: DECIMAL(18, 6), value: money },
  'VARCHAR[]': { type: LIST(VARCHAR), value: (value) => listValue((value as string[]).map(String)) },
  'BIGINT[]': { type: LIST(BIGINT), value: (value) => listValue((value as number[]).map((n) => BigInt(n))) },
  'DECIMAL(18,6)[]': { type: LIST(DECIMAL(18, 6)), value: (value) => listValue((value as string[]).map(money)) },
};

/** The writer of a column declared as `declaration` (`VARCHAR NOT NULL DEFAULT ''` -> VARCHAR). */
export function columnWriter(declaration: string): ColumnWriter {
  const type = declaration.split(' ')[0];
  const writer = WRITERS[type];
  if (!writer) throw new Error(`no DuckDB writer for column type ${type}`);
  return writer;
}

/** The rows as one data chunk of `columns` (name and declared type), for an appender. At most 2,048 rows (DuckDB's vector size). */
export function dataChunkOf(columns: readonly { name: string; duckdb: string }[], rows: readonly WarehouseRow[]): DuckDBDataChunk {
  const writers = columns.map((column) => columnWriter(column.duckdb));
  const chunk = DuckDBDataChunk.create(
    writers.map((writer) => writer.type),
    rows.length,
  );
  chunk.setColumns(columns.map((column, i) => rows.map((row) => writers[i].value(row[column.name]))));
  return chunk;
}

/** DuckDB's vector size: the most rows one data chunk holds. */
export const CHUNK_ROWS = 2048;
