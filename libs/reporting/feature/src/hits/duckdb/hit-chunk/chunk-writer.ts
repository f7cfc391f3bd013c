import { DuckDBDataChunk, type DuckDBAppender } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';
import type { WarehouseRow } from '../../hit-row';
import { CHUNK_ROWS, STRING_BYTES, columnWriter, type ColumnValues, type ColumnWriter, type LaidColumn } from './columns';
import { assignLongTexts, longTextsBound, packLongTexts } from './long-texts';

/**
 * Copies a laid-out column (its bytes at `offset` of `source`) into column `column` of `chunk`; a
 * packed text column's long texts follow its bytes (see `packLongTexts`).
 */
function writeColumn(
  chunk: DuckDBDataChunk,
  column: number,
  writer: ColumnWriter,
  laid: LaidColumn & { longBytes?: number },
  source: ArrayBuffer,
  offset: number,
): void {
  if (laid.values) {
    chunk.setColumnValues(column, laid.values.map(writer.convert!));
    return;
  }
  const vector = duckdb.data_chunk_get_vector(chunk.chunk, column);
  duckdb.copy_data_to_vector(vector, 0, source, offset, laid.bytes);
  const rows = laid.longRows ?? [];
  for (let i = 0; i < rows.length; i++) duckdb.vector_assign_string_element(vector, rows[i], laid.longTexts![i]);
  const longBytes = laid.longBytes ?? 0;
  if (longBytes > 0)
    assignLongTexts(
      vector,
      laid.bytes / STRING_BYTES,
      new DataView(source, offset + laid.bytes, longBytes),
      new Uint8Array(source, offset + laid.bytes, longBytes),
    );
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

  /**
   * Appends rows packed by `pack` (of a writer of the same columns, or of their first ones: packs of
   * an earlier version, whose columns added since are appended NULL); the number of rows.
   */
  appendPacked(appender: DuckDBAppender, packed: Uint8Array): number {
    const view = Buffer.from(packed.buffer, packed.byteOffset, packed.byteLength);
    const headerLength = view.readUInt32LE(0);
    const header = JSON.parse(view.toString('utf8', 4, 4 + headerLength)) as PackedHeader;
    const names = this.columns.map((column) => column.name);
    if (header.columns.length === 0 || header.columns.join(',') !== names.slice(0, header.columns.length).join(','))
      throw new Error(`packed rows of the columns (${header.columns.join(', ')}) cannot be appended to (${names.join(', ')})`);
    const base = packed.byteOffset + 4 + headerLength;
    let appended = 0;
    for (const { count, columns } of header.chunks) {
      const chunk = this.reset(count);
      columns.forEach((laid, column) => writeColumn(chunk, column, this.writers[column], laid, packed.buffer as ArrayBuffer, base + laid.at));
      for (let column = columns.length; column < this.writers.length; column++) chunk.setColumnValues(column, new Array<null>(count).fill(null));
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
