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

/** Lays out `count` values of a column (see LaidColumn) at `offset` (a multiple of 8) of `target`. */
type Lay = (count: number, value: ColumnValues, target: ArrayBuffer, offset: number) => LaidColumn;

/** How a column of a declared type is handed to DuckDB: laid out, then copied into its vector (lists: `convert`ed to DuckDBValues). */
interface ColumnWriter {
  type: DuckDBType;
  /** The bytes a column of `count` rows takes laid out (0: a list column, whose values go in the header). */
  width: number;
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
const layText: Lay = (count, value, target, offset) => {
  const bytes = new Uint8Array(target, offset, count * STRING_BYTES);
  const words = new Uint32Array(target, offset, count * 4);
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

function layNumbers(array: (target: ArrayBuffer, offset: number, count: number) => Uint8Array | Uint32Array): Lay {
  return (count, value, target, offset) => {
    const values = array(target, offset, count);
    for (let row = 0; row < count; row++) values[row] = Number(value(row));
    return { bytes: values.byteLength };
  };
}

function layBigInts(convert: (value: WarehouseValue) => bigint): Lay {
  return (count, value, target, offset) => {
    const values = new BigInt64Array(target, offset, count);
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
    width: 0,
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

/**
 * Copies a laid-out column (its bytes at `offset` of `source`) into column `column` of `chunk`; a
 * packed text column's long texts follow its bytes (see `packLongTexts`).
 */
function writeColumn(chunk: DuckDBDataChunk, column: number, writer: ColumnWriter, laid: PackedColumn | LaidColumn, source: ArrayBuffer, offset: number): void {
  if (laid.values) {
    chunk.setColumnValues(column, laid.values.map(writer.convert!));
    return;
  }
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  duckdb.copy_data_to_vector(vector, 0, source, offset, laid.bytes);
  const rows = laid.longRows ?? [];
  for (let i = 0; i < rows.length; i++) duckdb.vector_assign_string_element(vector, rows[i], laid.longTexts![i]);
  const longBytes = 'longBytes' in laid ? (laid.longBytes ?? 0) : 0;
  if (longBytes > 0)
    assignLongTexts(
      vector,
      laid.bytes / STRING_BYTES,
      new DataView(source, offset + laid.bytes, longBytes),
      new Uint8Array(source, offset + laid.bytes, longBytes),
    );
}

/**
 * A text column's long texts as `pack` writes them after the column's string_t (left empty for them):
 * per long text its row (uint32) and then either its UTF-8 length (int32) and bytes, padded to 4, or,
 * for a text an earlier row of the column holds, -1 - that row (whose string_t is then copied: both
 * point at the one copy in the vector's string heap).
 */
function packLongTexts(target: Buffer, at: number, rows: readonly number[], texts: readonly string[]): number {
  const firstRow = new Map<string, number>();
  let end = at;
  for (let i = 0; i < rows.length; i++) {
    const text = texts[i];
    target.writeUInt32LE(rows[i], end);
    const earlier = firstRow.get(text);
    if (earlier !== undefined) {
      target.writeInt32LE(-1 - earlier, end + 4);
      end += 8;
      continue;
    }
    firstRow.set(text, rows[i]);
    const length = asciiInto(target, end + 8, text) ?? target.write(text, end + 8, 'utf8');
    target.writeInt32LE(length, end + 4);
    const padded = (length + 3) & ~3;
    // Padding zeroed: the buffer is reused and its bytes go to the ingest log.
    for (let i = length; i < padded; i++) target[end + 8 + i] = 0;
    end += 8 + padded;
  }
  return end - at;
}

/** The bytes of `text` written at `at` when it is ASCII (its length), else undefined (nothing meant). */
function asciiInto(target: Buffer, at: number, text: string): number | undefined {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return undefined;
    target[at + i] = code;
  }
  return length;
}

/** The most bytes `packLongTexts` writes for these texts. */
function longTextsBound(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += 12 + text.length * 3;
  return bytes;
}

/** Assigns the long texts packed by `packLongTexts` (`view` and `bytes` over them) to the rows of `vector` (of `count` rows). */
function assignLongTexts(vector: duckdb.Vector, count: number, view: DataView, bytes: Uint8Array): void {
  let repeats = false;
  for (let at = 0; at < view.byteLength;) {
    const length = view.getInt32(at + 4, true);
    if (length >= 0) {
      duckdb.vector_assign_string_element_len(vector, view.getUint32(at, true), bytes.subarray(at + 8, at + 8 + length));
      at += 8 + ((length + 3) & ~3);
    } else {
      repeats = true;
      at += 8;
    }
  }
  if (!repeats) return;
  // The vector's string_t (a copy) with the repeats' taken from their earlier rows, copied back at once.
  const data = duckdb.vector_get_data(vector, count * STRING_BYTES);
  for (let at = 0; at < view.byteLength;) {
    const length = view.getInt32(at + 4, true);
    if (length < 0) {
      const earlier = -1 - length;
      data.copyWithin(view.getUint32(at, true) * STRING_BYTES, earlier * STRING_BYTES, (earlier + 1) * STRING_BYTES);
    }
    at += length >= 0 ? 8 + ((length + 3) & ~3) : 8;
  }
  duckdb.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset, count * STRING_BYTES);
}

/** The writers by DuckDB type, as WAREHOUSE_COLUMNS spell them (up to a DEFAULT or NOT NULL). */
const WRITERS: Readonly<Record<string, ColumnWriter>> = {
  VARCHAR: { type: VARCHAR, width: STRING_BYTES, lay: layText },
  BIGINT: { type: BIGINT, width: 8, lay: layBigInts((value) => BigInt(value as number)) },
  BOOLEAN: { type: BOOLEAN, width: 1, lay: layNumbers((target, offset, count) => new Uint8Array(target, offset, count)) },
  UTINYINT: { type: UTINYINT, width: 1, lay: layNumbers((target, offset, count) => new Uint8Array(target, offset, count)) },
  UINTEGER: { type: UINTEGER, width: 4, lay: layNumbers((target, offset, count) => new Uint32Array(target, offset, count)) },
  'DECIMAL(18,6)': { type: DECIMAL(18, 6), width: 8, lay: layBigInts(micros) },
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

/** `bytes` rounded up to a multiple of 8. */
const aligned = (bytes: number) => (bytes + 7) & ~7;

/**
 * A laid-out column of packed rows: where its bytes are in the packed bytes, and the bytes of its
 * long texts after them (see `packLongTexts`; packs of an earlier version list them in `longTexts`).
 */
type PackedColumn = LaidColumn & { at: number; longBytes?: number };

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
  /** Where `pack` lays rows out, after `headerRoom` bytes kept for their header. */
  private packBuffer = Buffer.alloc(0);
  private headerRoom = 0;

  constructor(private readonly columns: readonly { name: string; duckdb: string }[]) {
    this.writers = columns.map((column) => columnWriter(column.duckdb));
  }

  /** Appends `count` rows; `values(name, start)` gives a column's values of the rows from `start` on. */
  append(appender: DuckDBAppender, count: number, values: (column: string, start: number) => ColumnValues): void {
    for (let start = 0; start < count; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, count - start);
      const chunk = this.reset(rows);
      this.writers.forEach((writer, column) =>
        writeColumn(chunk, column, writer, writer.lay(rows, values(this.columns[column].name, start), this.scratch, 0), this.scratch, 0),
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
   * (the columns' names; per chunk its row count and, per column, where its bytes are, or its list
   * values), then the columns' bytes, a text column's followed by its long texts (`packLongTexts`:
   * UTF-8, each text once per column and chunk). Values a column cannot hold throw here.
   *
   * The buffer is the writer's own, written over by its next `pack` (no buffer of tens of MB made
   * per ingest, which made V8 collect its whole heap): use it (append it, log it) before.
   */
  pack(count: number, values: (column: string, start: number) => ColumnValues): Buffer {
    // Laid out after room for the header, in the writer's own buffer (grown when long texts need it).
    const room = this.headerRoom;
    let fixed = room;
    for (let start = 0; start < count; start += CHUNK_ROWS)
      for (const writer of this.writers) fixed += aligned(writer.width * Math.min(CHUNK_ROWS, count - start));
    let at = room;
    const ensure = (bytes: number) => {
      if (at + bytes <= this.packBuffer.length) return;
      const larger = Buffer.allocUnsafeSlow(Math.max(at + bytes, fixed + (fixed >> 2), this.packBuffer.length * 2));
      this.packBuffer.copy(larger, 0, 0, at);
      this.packBuffer = larger;
    };
    ensure(fixed - room);
    const chunks: PackedHeader['chunks'] = [];
    for (let start = 0; start < count; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, count - start);
      const columns = this.writers.map((writer, column): PackedColumn => {
        ensure(writer.width * rows);
        const { longRows, longTexts, ...laid } = writer.lay(rows, values(this.columns[column].name, start), this.packBuffer.buffer as ArrayBuffer, at);
        const packed: PackedColumn = { ...laid, at: at - room };
        at += laid.bytes;
        if (longRows && longRows.length > 0) {
          ensure(longTextsBound(longTexts!));
          packed.longBytes = packLongTexts(this.packBuffer, at, longRows, longTexts!);
          at += packed.longBytes;
        }
        const end = at;
        at = aligned(at);
        ensure(0);
        this.packBuffer.fill(0, end, at);
        return packed;
      });
      chunks.push({ count: rows, columns });
    }
    const header = JSON.stringify({ columns: this.columns.map((column) => column.name), chunks } satisfies PackedHeader);
    const headerLength = Buffer.byteLength(header);
    if (4 + headerLength > room) {
      // More header than room (the first pack, or many list values): a buffer of its own, and more room next time.
      this.headerRoom = aligned(4 + headerLength + (headerLength >> 1));
      const packed = Buffer.allocUnsafe(4 + headerLength + at - room);
      packed.writeUInt32LE(headerLength, 0);
      packed.write(header, 4);
      this.packBuffer.copy(packed, 4 + headerLength, room, at);
      return packed;
    }
    const first = room - 4 - headerLength;
    this.packBuffer.writeUInt32LE(headerLength, first);
    this.packBuffer.write(header, first + 4);
    return this.packBuffer.subarray(first, at);
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
      writer.lay(rows.length, (row) => rows[row][columns[column].name], scratch, 0),
      scratch,
      0,
    ),
  );
  return chunk;
}
