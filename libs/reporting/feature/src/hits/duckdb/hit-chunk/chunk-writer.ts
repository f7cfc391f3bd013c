import { DuckDBDataChunk, type DuckDBAppender } from '@duckdb/node-api';
import duckdb from '@duckdb/node-bindings';
import type { WarehouseRow, WarehouseValue } from '../../hit-row';
import { CHUNK_ROWS, STRING_BYTES, columnWriter, type ColumnValue, type ColumnValuesOf, type ColumnWriter, type LaidColumn } from './columns';
import { assignLongTexts, longTextsBound, packLongTexts } from './long-texts';

/**
 * Copies a laid-out column (its bytes at `offset` of `source`) into `vector`; a packed text column's
 * long texts follow its bytes (see `packLongTexts`).
 */
function writeColumn(vector: duckdb.Vector, writer: ColumnWriter, laid: LaidColumn & { longBytes?: number }, source: ArrayBuffer, offset: number): void {
  if (laid.values) {
    writeLists(vector, writer.child!, laid.values as readonly (readonly WarehouseValue[])[]);
    return;
  }
  duckdb.copy_data_to_vector(vector, 0, source, offset, laid.bytes);
  const rows = laid.longRows;
  if (rows) for (let i = 0; i < rows.length; i++) duckdb.vector_assign_string_element(vector, rows[i], laid.longTexts![i]);
  const longBytes = laid.longBytes ?? 0;
  if (longBytes > 0)
    assignLongTexts(
      vector,
      laid.bytes / STRING_BYTES,
      new DataView(source, offset + laid.bytes, longBytes),
      new Uint8Array(source, offset + laid.bytes, longBytes),
    );
}

/**
 * Writes a list column's values into its vector: each row's entry (offset and length, two uint64, in
 * the child vector) and the elements of every row, laid out by `child` into the child vector.
 */
function writeLists(vector: duckdb.Vector, child: ColumnWriter, lists: readonly (readonly WarehouseValue[])[]): void {
  const entries = new BigUint64Array(lists.length * 2);
  const elements: WarehouseValue[] = [];
  lists.forEach((list, row) => {
    entries[row * 2] = BigInt(elements.length);
    entries[row * 2 + 1] = BigInt(list.length);
    for (const element of list) elements.push(element);
  });
  duckdb.list_vector_reserve(vector, elements.length);
  duckdb.list_vector_set_size(vector, elements.length);
  duckdb.copy_data_to_vector(vector, 0, entries.buffer, 0, entries.byteLength);
  if (elements.length === 0) return;
  const scratch = new ArrayBuffer(aligned(elements.length * child.width));
  writeColumn(duckdb.list_vector_get_child(vector), child, child.lay(elements, 0, elements.length, itself, scratch, 0), scratch, 0);
}

/** A list element's value: itself. */
const itself: ColumnValue<WarehouseValue> = (element) => element;

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
  /** The vectors of `chunk`, by column (a chunk's reset keeps them). */
  private vectors: duckdb.Vector[] = [];
  private readonly scratch = new ArrayBuffer(CHUNK_ROWS * STRING_BYTES);
  /** Where `pack` lays rows out, after `headerRoom` bytes kept for their header. */
  private packBuffer = Buffer.alloc(0);
  private headerRoom = 0;
  /** The columns' names as a packed header lists them (JSON), and joined by commas (checked against a header's). */
  private readonly namesJson: string;
  private readonly namesKey: string;

  constructor(private readonly columns: readonly { name: string; duckdb: string }[]) {
    this.writers = columns.map((column) => columnWriter(column.duckdb));
    const names = columns.map((column) => column.name);
    this.namesJson = JSON.stringify(names);
    this.namesKey = names.join(',');
  }

  /** Appends a row per item; `valuesOf(name)` reads a column's value from an item. */
  append<T>(appender: DuckDBAppender, items: readonly T[], valuesOf: ColumnValuesOf<T>): void {
    const values = this.columns.map((column) => valuesOf(column.name));
    for (let start = 0; start < items.length; start += CHUNK_ROWS) {
      const rows = Math.min(CHUNK_ROWS, items.length - start);
      const chunk = this.reset(rows);
      for (let column = 0; column < this.writers.length; column++) {
        const writer = this.writers[column];
        writeColumn(this.vectors[column], writer, writer.lay(items, start, rows, values[column], this.scratch, 0), this.scratch, 0);
      }
      appender.appendDataChunk(chunk);
    }
  }

  /** Appends warehouse rows (objects keyed by column name). */
  appendRows(appender: DuckDBAppender, rows: readonly WarehouseRow[]): void {
    this.append(appender, rows, rowValues);
  }

  /**
   * A row per item (as `append` takes them) laid out in one buffer: a uint32 length, a JSON header
   * (the columns' names; per chunk its row count and, per column, where its bytes are, or its list
   * values), then the columns' bytes, a text column's followed by its long texts (`packLongTexts`:
   * UTF-8, each text once per column and chunk). Values a column cannot hold throw here.
   *
   * The buffer is the writer's own, written over by its next `pack` (no buffer of tens of MB made
   * per ingest, which made V8 collect its whole heap): use it (append it, log it) before.
   */
  pack<T>(items: readonly T[], valuesOf: ColumnValuesOf<T>): Buffer {
    const count = items.length;
    const values = this.columns.map((column) => valuesOf(column.name));
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
        const laid = writer.lay(items, start, rows, values[column], this.packBuffer.buffer as ArrayBuffer, at);
        // Built field by field: an object rest and spread per column were most of a small pack's time.
        const packed: PackedColumn = { bytes: laid.bytes, at: at - room };
        if (laid.values) packed.values = laid.values;
        at += laid.bytes;
        const { longRows, longTexts } = laid;
        if (longRows && longRows.length > 0) {
          ensure(longTextsBound(longTexts!));
          packed.longBytes = packLongTexts(this.packBuffer, at, longRows, longTexts!);
          at += packed.longBytes;
        }
        const end = at;
        at = aligned(at);
        ensure(0);
        for (let i = end; i < at; i++) this.packBuffer[i] = 0;
        return packed;
      });
      chunks.push({ count: rows, columns });
    }
    // JSON.stringify({ columns, chunks } satisfies PackedHeader), with the names' JSON made once.
    const header = `{"columns":${this.namesJson},"chunks":${JSON.stringify(chunks satisfies PackedHeader['chunks'])}}`;
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
    // Entries logged by a version with fewer columns (a column added since) hold a prefix of today's: the rest is NULL.
    const key = header.columns.join(',');
    if (header.columns.length === 0 || (key !== this.namesKey && !this.namesKey.startsWith(`${key},`)))
      throw new Error(`packed rows of the columns (${header.columns.join(', ')}) cannot be appended to (${this.namesKey.split(',').join(', ')})`);
    const base = packed.byteOffset + 4 + headerLength;
    let appended = 0;
    for (const { count, columns } of header.chunks) {
      const chunk = this.reset(count);
      columns.forEach((laid, column) => writeColumn(this.vectors[column], this.writers[column], laid, packed.buffer as ArrayBuffer, base + laid.at));
      for (let column = columns.length; column < this.writers.length; column++) chunk.setColumnValues(column, new Array<null>(count).fill(null));
      appender.appendDataChunk(chunk);
      appended += count;
    }
    return appended;
  }

  /** The writer's data chunk, emptied, for `count` rows. */
  private reset(count: number): DuckDBDataChunk {
    if (this.chunk) this.chunk.reset();
    else {
      const chunk = DuckDBDataChunk.create(
        this.writers.map((writer) => writer.type),
        count,
      );
      this.vectors = this.writers.map((_, column) => duckdb.data_chunk_get_vector(chunk.chunk, column));
      this.chunk = chunk;
    }
    this.chunk.rowCount = count;
    return this.chunk;
  }
}

/** A warehouse row's value of a column: its field of that name. */
const rowValues: ColumnValuesOf<WarehouseRow> = (column) => (row) => row[column];

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
      duckdb.data_chunk_get_vector(chunk.chunk, column),
      writer,
      writer.lay(rows, 0, rows.length, (row) => row[columns[column].name], scratch, 0),
      scratch,
      0,
    ),
  );
  return chunk;
}
