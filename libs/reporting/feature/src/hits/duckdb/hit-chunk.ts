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
  type DuckDBAppender,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';
import { toMicros } from '@funnel/reporting-domain';
import type { WarehouseRow, WarehouseValue } from '../hit-row';

/** DuckDB's vector size: the most rows one data chunk holds. */
export const CHUNK_ROWS = 2048;

/** A column's value of each row of a chunk (`row` counts from the chunk's first row). */
export type ColumnValues = (row: number) => WarehouseValue;

/**
 * Writes `count` values of a column into its vector. Fixed-width values are laid out in `scratch` (a
 * buffer of CHUNK_ROWS * 16 bytes) and copied into the vector with one native call; text too when
 * short (below); lists go through @duckdb/node-api's vectors. Every column here is NOT NULL: the
 * validity mask of a fresh or reset chunk says all valid.
 */
type VectorFill = (chunk: DuckDBDataChunk, column: number, count: number, value: ColumnValues, scratch: ArrayBuffer) => void;

/** How a column of a declared type is handed to DuckDB. */
interface ColumnWriter {
  type: DuckDBType;
  fill: VectorFill;
}

/** DuckDB's string_t: 16 bytes, a uint32 length, then up to 12 bytes inline (longer ones point into the vector's string heap). */
const STRING_BYTES = 16;
const INLINE_BYTES = 12;

/**
 * Text: ASCII of at most 12 bytes (ids, codes, "", most visitor attributes) laid out inline in its
 * string_t, padded with zeros as DuckDB compares it, all copied at once; other text then assigned by
 * DuckDB (one native call each, which copies it into the vector's string heap).
 */
const fillText: VectorFill = (chunk, column, count, value, scratch) => {
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  const bytes = new Uint8Array(scratch, 0, count * STRING_BYTES);
  const words = new Uint32Array(scratch, 0, count * 4);
  words.fill(0);
  const assigned: number[] = [];
  const texts: string[] = [];
  for (let row = 0; row < count; row++) {
    const text = String(value(row));
    const length = text.length;
    let inline = length <= INLINE_BYTES;
    const at = row * STRING_BYTES + 4;
    for (let i = 0; inline && i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) inline = false;
      else bytes[at + i] = code;
    }
    if (inline) words[row * 4] = length;
    else {
      assigned.push(row);
      texts.push(text);
    }
  }
  duckdb.copy_data_to_vector(vector, 0, scratch, 0, count * STRING_BYTES);
  for (let i = 0; i < assigned.length; i++) duckdb.vector_assign_string_element(vector, assigned[i], texts[i]);
};

function fillNumbers(array: (scratch: ArrayBuffer, count: number) => Uint8Array | Uint32Array): VectorFill {
  return (chunk, column, count, value, scratch) => {
    const values = array(scratch, count);
    for (let row = 0; row < count; row++) values[row] = Number(value(row));
    duckdb.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk.chunk, column), 0, scratch, 0, values.byteLength);
  };
}

function fillBigInts(convert: (value: WarehouseValue) => bigint): VectorFill {
  return (chunk, column, count, value, scratch) => {
    const values = new BigInt64Array(scratch, 0, count);
    for (let row = 0; row < count; row++) values[row] = convert(value(row));
    duckdb.copy_data_to_vector(duckdb.data_chunk_get_vector(chunk.chunk, column), 0, scratch, 0, values.byteLength);
  };
}

/** DECIMAL(18,6) is an int64 of micro-units, of at most 18 digits. */
const DECIMAL_LIMIT = 10n ** 18n;
function micros(value: WarehouseValue): bigint {
  if (value === '0') return 0n;
  const result = toMicros(String(value));
  if (result >= DECIMAL_LIMIT || result <= -DECIMAL_LIMIT) throw new RangeError(`${String(value)} is out of the range of DECIMAL(18,6)`);
  return result;
}

/** Columns of other types through @duckdb/node-api's vectors (a DuckDBValue per row). */
function fillValues(convert: (value: WarehouseValue) => DuckDBValue): VectorFill {
  return (chunk, column, count, value) => {
    const values: DuckDBValue[] = new Array(count);
    for (let row = 0; row < count; row++) values[row] = convert(value(row));
    chunk.setColumnValues(column, values);
  };
}

/** The writers by DuckDB type, as WAREHOUSE_COLUMNS spell them (up to a DEFAULT or NOT NULL). */
const WRITERS: Readonly<Record<string, ColumnWriter>> = {
  VARCHAR: { type: VARCHAR, fill: fillText },
  BIGINT: { type: BIGINT, fill: fillBigInts((value) => BigInt(value as number)) },
  BOOLEAN: { type: BOOLEAN, fill: fillNumbers((scratch, count) => new Uint8Array(scratch, 0, count)) },
  UTINYINT: { type: UTINYINT, fill: fillNumbers((scratch, count) => new Uint8Array(scratch, 0, count)) },
  UINTEGER: { type: UINTEGER, fill: fillNumbers((scratch, count) => new Uint32Array(scratch, 0, count)) },
  'DECIMAL(18,6)': { type: DECIMAL(18, 6), fill: fillBigInts(micros) },
  'VARCHAR[]': { type: LIST(VARCHAR), fill: fillValues((value) => listValue((value as string[]).map(String))) },
  'BIGINT[]': { type: LIST(BIGINT), fill: fillValues((value) => listValue((value as number[]).map((n) => BigInt(n)))) },
  'DECIMAL(18,6)[]': {
    type: LIST(DECIMAL(18, 6)),
    fill: fillValues((value) => listValue((value as string[]).map((text) => decimalValue(micros(text), 18, 6)))),
  },
};

/** The writer of a column declared as `declaration` (`VARCHAR NOT NULL DEFAULT ''` -> VARCHAR). */
function columnWriter(declaration: string): ColumnWriter {
  const type = declaration.split(' ')[0];
  const writer = WRITERS[type];
  if (!writer) throw new Error(`no DuckDB writer for column type ${type}`);
  return writer;
}

/**
 * Appends rows to a DuckDB appender column by column, CHUNK_ROWS at a time, through one data chunk
 * it refills (the appender copies each chunk it is given). One writer per appender at a time.
 */
export class ChunkWriter {
  private readonly writers: ColumnWriter[];
  private chunk: DuckDBDataChunk | undefined;
  private readonly scratch = new ArrayBuffer(CHUNK_ROWS * STRING_BYTES);

  constructor(private readonly columns: readonly { name: string; duckdb: string }[]) {
    this.writers = columns.map((column) => columnWriter(column.duckdb));
  }

  /** Appends `count` rows; `values(name, start)` gives a column's values of the rows from `start` on. */
  append(appender: DuckDBAppender, count: number, values: (column: string, start: number) => ColumnValues): void {
    for (let start = 0; start < count; start += CHUNK_ROWS)
      appender.appendDataChunk(this.fill(Math.min(CHUNK_ROWS, count - start), (column) => values(column, start)));
  }

  /** Appends warehouse rows (objects keyed by column name). */
  appendRows(appender: DuckDBAppender, rows: readonly WarehouseRow[]): void {
    this.append(appender, rows.length, (column, start) => (row) => rows[start + row][column]);
  }

  private fill(count: number, values: (column: string) => ColumnValues): DuckDBDataChunk {
    if (this.chunk) this.chunk.reset();
    else
      this.chunk = DuckDBDataChunk.create(
        this.writers.map((writer) => writer.type),
        count,
      );
    const chunk = this.chunk;
    chunk.rowCount = count;
    this.writers.forEach((writer, column) => writer.fill(chunk, column, count, values(this.columns[column].name), this.scratch));
    return chunk;
  }
}

/** The rows as one data chunk of `columns` (name and declared type). At most CHUNK_ROWS rows. */
export function dataChunkOf(columns: readonly { name: string; duckdb: string }[], rows: readonly WarehouseRow[]): DuckDBDataChunk {
  const writers = columns.map((column) => columnWriter(column.duckdb));
  const chunk = DuckDBDataChunk.create(
    writers.map((writer) => writer.type),
    rows.length,
  );
  const scratch = new ArrayBuffer(CHUNK_ROWS * STRING_BYTES);
  writers.forEach((writer, column) => writer.fill(chunk, column, rows.length, (row) => rows[row][columns[column].name], scratch));
  return chunk;
}
