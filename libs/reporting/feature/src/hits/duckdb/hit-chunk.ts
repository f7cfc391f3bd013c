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
 * A column of up to CHUNK_ROWS rows laid out as DuckDB's vector holds it: `bytes` bytes at the start
 * of the scratch buffer (a buffer of CHUNK_ROWS * 16 bytes) of fixed-width values, or of string_t
 * with the short texts inline (below) and the others, by row, in `longRows`/`longTexts`; a list
 * column has its `values` instead. Every column here is NOT NULL: the validity mask of a fresh or
 * reset chunk says all valid.
 */
interface LaidColumn {
  bytes: number;
  longRows?: number[];
  longTexts?: string[];
  values?: WarehouseValue[];
}

/** Lays out `count` values of a column (see LaidColumn). */
type Lay = (count: number, value: ColumnValues, scratch: ArrayBuffer) => LaidColumn;

/** How a column of a declared type is handed to DuckDB: laid out, then copied into its vector (lists: `convert`ed to DuckDBValues). */
interface ColumnWriter {
  type: DuckDBType;
  lay: Lay;
  convert?: (value: WarehouseValue) => DuckDBValue;
}

/** DuckDB's string_t: 16 bytes, a uint32 length, then up to 12 bytes inline (longer ones point into the vector's string heap). */
const STRING_BYTES = 16;
const INLINE_BYTES = 12;

/**
 * Text: ASCII of at most 12 bytes (ids, codes, "", most visitor attributes) laid out inline in its
 * string_t, padded with zeros as DuckDB compares it, all copied at once; other text then assigned by
 * DuckDB (one native call each, which copies it into the vector's string heap).
 */
const layText: Lay = (count, value, scratch) => {
  const bytes = new Uint8Array(scratch, 0, count * STRING_BYTES);
  const words = new Uint32Array(scratch, 0, count * 4);
  words.fill(0);
  const longRows: number[] = [];
  const longTexts: string[] = [];
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
      // Left all zeros (an empty string) until assigned.
      for (let i = 0; i < INLINE_BYTES; i++) bytes[at + i] = 0;
      longRows.push(row);
      longTexts.push(text);
    }
  }
  return { bytes: count * STRING_BYTES, longRows, longTexts };
};

function layNumbers(array: (scratch: ArrayBuffer, count: number) => Uint8Array | Uint32Array): Lay {
  return (count, value, scratch) => {
    const values = array(scratch, count);
    for (let row = 0; row < count; row++) values[row] = Number(value(row));
    return { bytes: values.byteLength };
  };
}

function layBigInts(convert: (value: WarehouseValue) => bigint): Lay {
  return (count, value, scratch) => {
    const values = new BigInt64Array(scratch, 0, count);
    for (let row = 0; row < count; row++) values[row] = convert(value(row));
    return { bytes: values.byteLength };
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

/** A list column: its values as given, converted (checked) here, set through @duckdb/node-api's vectors when written. */
function listWriter(type: DuckDBType, convert: (value: WarehouseValue) => DuckDBValue): ColumnWriter {
  return {
    type,
    convert,
    lay: (count, value) => {
      const values: WarehouseValue[] = new Array(count);
      for (let row = 0; row < count; row++) {
        values[row] = value(row);
        convert(values[row]);
      }
      return { bytes: 0, values };
    },
  };
}

/** Copies a laid-out column (its bytes at `offset` of `source`) into column `column` of `chunk`. */
function writeColumn(chunk: DuckDBDataChunk, column: number, writer: ColumnWriter, laid: LaidColumn, source: ArrayBuffer, offset: number): void {
  if (laid.values) {
    chunk.setColumnValues(column, laid.values.map(writer.convert!));
    return;
  }
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  duckdb.copy_data_to_vector(vector, 0, source, offset, laid.bytes);
  const rows = laid.longRows ?? [];
  for (let i = 0; i < rows.length; i++) duckdb.vector_assign_string_element(vector, rows[i], laid.longTexts![i]);
}

/** The writers by DuckDB type, as WAREHOUSE_COLUMNS spell them (up to a DEFAULT or NOT NULL). */
const WRITERS: Readonly<Record<string, ColumnWriter>> = {
  VARCHAR: { type: VARCHAR, lay: layText },
  BIGINT: { type: BIGINT, lay: layBigInts((value) => BigInt(value as number)) },
  BOOLEAN: { type: BOOLEAN, lay: layNumbers((scratch, count) => new Uint8Array(scratch, 0, count)) },
  UTINYINT: { type: UTINYINT, lay: layNumbers((scratch, count) => new Uint8Array(scratch, 0, count)) },
  UINTEGER: { type: UINTEGER, lay: layNumbers((scratch, count) => new Uint32Array(scratch, 0, count)) },
  'DECIMAL(18,6)': { type: DECIMAL(18, 6), lay: layBigInts(micros) },
  'VARCHAR[]': listWriter(LIST(VARCHAR), (value) => listValue((value as string[]).map(String))),
  'BIGINT[]': listWriter(LIST(BIGINT), (value) => listValue((value as number[]).map((n) => BigInt(n)))),
  'DECIMAL(18,6)[]': listWriter(LIST(DECIMAL(18, 6)), (value) => listValue((value as string[]).map((text) => decimalValue(micros(text), 18, 6)))),
};

/** The writer of a column declared as `declaration` (`VARCHAR NOT NULL DEFAULT ''` -> VARCHAR). */
function columnWriter(declaration: string): ColumnWriter {
  const type = declaration.split(' ')[0];
  const writer = WRITERS[type];
  if (!writer) throw new Error(`no DuckDB writer for column type ${type}`);
  return writer;
}

/** A laid-out column of packed rows: where its bytes are in the packed bytes. */
type PackedColumn = LaidColumn & { at: number };

/** The header of packed rows (see ChunkWriter.pack). */
interface PackedHeader {
  columns: string[];
  chunks: { count: number; columns: PackedColumn[] }[];
}

/**
 * Appends rows to a DuckDB appender column by column, CHUNK_ROWS at a time, through one data chunk
 * it refills (the appender copies each chunk it is given). One writer per appender at a time.
 *
 * Rows can also be packed (`pack`): laid out once as DuckDB's vectors hold them, in one buffer
 * that `appendPacked` appends later, here or after a restart, with little more than a copy.
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
    for (let start = 0; start < count; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, count - start);
      const chunk = this.reset(rows);
      this.writers.forEach((writer, column) =>
        writeColumn(chunk, column, writer, writer.lay(rows, values(this.columns[column].name, start), this.scratch), this.scratch, 0),
      );
      appender.appendDataChunk(chunk);
    }
  }

  /** Appends warehouse rows (objects keyed by column name). */
  appendRows(appender: DuckDBAppender, rows: readonly WarehouseRow[]): void {
    this.append(appender, rows.length, (column, start) => (row) => rows[start + row][column]);
  }

  /**
   * `count` rows (as `append` takes them) laid out in one buffer: a uint32 length, a JSON header
   * (the columns' names; per chunk its row count and, per column, where its bytes are, its long texts
   * or its list values), then the columns' bytes. Values a column cannot hold throw here.
   */
  pack(count: number, values: (column: string, start: number) => ColumnValues): Buffer {
    const parts: Uint8Array[] = [];
    let at = 0;
    const chunks: PackedHeader['chunks'] = [];
    for (let start = 0; start < count; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, count - start);
      const columns = this.writers.map((writer, column): PackedColumn => {
        const laid = writer.lay(rows, values(this.columns[column].name, start), this.scratch);
        if (laid.bytes > 0) parts.push(new Uint8Array(this.scratch.slice(0, laid.bytes)));
        const packed = { ...laid, at };
        at += laid.bytes;
        return packed;
      });
      chunks.push({ count: rows, columns });
    }
    const header = Buffer.from(JSON.stringify({ columns: this.columns.map((column) => column.name), chunks } satisfies PackedHeader));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(header.length);
    return Buffer.concat([length, header, ...parts]);
  }

  /** Appends rows packed by `pack` (of a writer of the same columns); the number of rows. */
  appendPacked(appender: DuckDBAppender, packed: Uint8Array): number {
    const view = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
    const headerLength = view.readUInt32LE(0);
    const header = JSON.parse(view.toString('utf8', 4, 4 + headerLength)) as PackedHeader;
    const names = this.columns.map((column) => column.name);
    if (header.columns.join(',') !== names.join(','))
      throw new Error(`packed rows of the columns (${header.columns.join(', ')}) cannot be appended to (${names.join(', ')})`);
    const base = packed.byteOffset + 4 + headerLength;
    let appended = 0;
    for (const { count, columns } of header.chunks) {
      const chunk = this.reset(count);
      columns.forEach((laid, column) => writeColumn(chunk, column, this.writers[column], laid, packed.buffer as ArrayBuffer, base + laid.at));
      appender.appendDataChunk(chunk);
      appended += count;
    }
    return appended;
  }

  /** The writer's data chunk, emptied, for `count` rows. */
  private reset(count: number): DuckDBDataChunk {
    if (this.chunk) this.chunk.reset();
    else
      this.chunk = DuckDBDataChunk.create(
        this.writers.map((writer) => writer.type),
        count,
      );
    this.chunk.rowCount = count;
    return this.chunk;
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
  writers.forEach((writer, column) =>
    writeColumn(
      chunk,
      column,
      writer,
      writer.lay(rows.length, (row) => rows[row][columns[column].name], scratch),
      scratch,
      0,
    ),
  );
  return chunk;
}
