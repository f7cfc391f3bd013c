import { closeSync, fstatSync, ftruncateSync, openSync, readSync, writevSync } from 'node:fs';
import { StorageUnavailableError, ensurePrivateFile } from '@funnel/eventstore';
import { HIT_WAREHOUSE } from './duckdb-instances';

/** Clicks an ingest counted on an account's hits stored before it: each hit's id, count and time. */
export interface LoggedClicks {
  accountId: string;
  ids: string[];
  counts: number[];
  times: number[];
}

/** One ingest's writes: its new hits (rows packed by ChunkWriter.pack) and the clicks it counted on hits stored before. */
export interface LoggedIngest {
  id: number;
  rows: Buffer;
  clicks: LoggedClicks[];
}

/** An entry: magic, id (float64), clicks' and rows' byte lengths, then the clicks (JSON), the rows, and the id again. */
const MAGIC = 0x314c4948; // "HIL1"
const HEADER_BYTES = 4 + 8 + 4 + 4;
const TRAILER_BYTES = 8;

/** Where an entry's parts are in the file. */
interface EntryPlace {
  id: number;
  offset: number;
  clicksBytes: number;
  rowsBytes: number;
}

/**
 * The ingest log of the embedded warehouse (`reporting.duckdb.ingest`, 0600): what an ingest wrote
 * into DuckDB's open ingest transaction, appended to the file before the ingest is answered (after
 * the hits' keys and visitor days are committed to the hit-key index). A write(2) that returned
 * survives a crash of the process, as SQLite's commits in WAL mode with synchronous=NORMAL do.
 * DuckDB commits ingested hits by the row group (see DuckDbHitStore); the log holds the ones not
 * committed yet and is replayed into DuckDB at the next open after a crash (or after a failed
 * write). The last entry DuckDB holds is recorded in DuckDB itself, in the transaction that commits
 * it; once DuckDB holds every entry, the file is emptied. An entry cut short by a crash (never
 * acknowledged) is cut off at open.
 */
export class IngestLog {
  private readonly entries: EntryPlace[] = [];
  private size = 0;
  private nextId = 1;

  private constructor(private readonly fd: number) {}

  /** Opens (creating it 0600) the log in `filename` and reads where its entries are. */
  static open(filename: string): IngestLog {
    ensurePrivateFile(filename);
    const log = new IngestLog(openSync(filename, 'r+'));
    log.scan();
    return log;
  }

  private scan(): void {
    const fileSize = fstatSync(this.fd).size;
    const header = Buffer.alloc(HEADER_BYTES);
    const trailer = Buffer.alloc(TRAILER_BYTES);
    let offset = 0;
    while (offset + HEADER_BYTES + TRAILER_BYTES <= fileSize) {
      readSync(this.fd, header, 0, HEADER_BYTES, offset);
      if (header.readUInt32LE(0) !== MAGIC) break;
      const id = header.readDoubleLE(4);
      const clicksBytes = header.readUInt32LE(12);
      const rowsBytes = header.readUInt32LE(16);
      const end = offset + HEADER_BYTES + clicksBytes + rowsBytes + TRAILER_BYTES;
      if (end > fileSize) break;
      readSync(this.fd, trailer, 0, TRAILER_BYTES, end - TRAILER_BYTES);
      if (trailer.readDoubleLE(0) !== id) break;
      this.entries.push({ id, offset, clicksBytes, rowsBytes });
      this.nextId = id + 1;
      offset = end;
    }
    // What follows the last whole entry was never acknowledged.
    if (offset < fileSize) ftruncateSync(this.fd, offset);
    this.size = offset;
  }

  /** Appends an entry (its id is above every id logged or committed before); its id. */
  append(rows: Buffer, clicks: readonly LoggedClicks[]): number {
    const id = this.nextId;
    const clicksText = Buffer.from(JSON.stringify(clicks));
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeDoubleLE(id, 4);
    header.writeUInt32LE(clicksText.length, 12);
    header.writeUInt32LE(rows.length, 16);
    const trailer = Buffer.alloc(TRAILER_BYTES);
    trailer.writeDoubleLE(id, 0);
    const parts = [header, clicksText, rows, trailer];
    const bytes = HEADER_BYTES + clicksText.length + rows.length + TRAILER_BYTES;
    try {
      let written = 0;
      while (written < bytes) written += writevSync(this.fd, unwritten(parts, written), this.size + written);
    } catch (error) {
      // A part written stays after the end the log knows: cut off (it is overwritten by the next entry anyway).
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // The next open cuts it off.
      }
      throw storageErrorOfFile(error) ?? error;
    }
    this.entries.push({ id, offset: this.size, clicksBytes: clicksText.length, rowsBytes: rows.length });
    this.size += bytes;
    this.nextId = id + 1;
    return id;
  }

  /** Ids from now on are above `id` (the last one DuckDB recorded). */
  skipTo(id: number): void {
    this.nextId = Math.max(this.nextId, id + 1);
  }

  /** The ids of the entries after `id`, in order. */
  idsAfter(id: number): number[] {
    return this.entries.filter((entry) => entry.id > id).map((entry) => entry.id);
  }

  /** Entry `id`. */
  entry(id: number): LoggedIngest {
    const place = this.entries.find((entry) => entry.id === id);
    if (!place) throw new Error(`the hit ingest log has no entry ${id}`);
    const body = Buffer.alloc(place.clicksBytes + place.rowsBytes);
    readSync(this.fd, body, 0, body.length, place.offset + HEADER_BYTES);
    return { id, rows: body.subarray(place.clicksBytes), clicks: JSON.parse(body.toString('utf8', 0, place.clicksBytes)) as LoggedClicks[] };
  }

  /** DuckDB holds the entries up to `id`: the file is emptied once it holds them all. */
  removeThrough(id: number): void {
    if (this.entries.length === 0 || this.entries[this.entries.length - 1].id > id) return;
    ftruncateSync(this.fd, 0);
    this.entries.length = 0;
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** `parts` past their first `written` bytes. */
function unwritten(parts: readonly Buffer[], written: number): Buffer[] {
  const rest: Buffer[] = [];
  let skip = written;
  for (const part of parts) {
    if (skip >= part.length) skip -= part.length;
    else {
      rest.push(skip > 0 ? part.subarray(skip) : part);
      skip = 0;
    }
  }
  return rest;
}

/** The StorageUnavailableError of a failed file write (Node's errno codes), or undefined. */
function storageErrorOfFile(error: unknown): StorageUnavailableError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOSPC' || code === 'EFBIG' || code === 'EDQUOT') return new StorageUnavailableError('full', HIT_WAREHOUSE, code);
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM') return new StorageUnavailableError('read-only', HIT_WAREHOUSE, code);
  if (code === 'EIO') return new StorageUnavailableError('io', HIT_WAREHOUSE, code);
  return undefined;
}
