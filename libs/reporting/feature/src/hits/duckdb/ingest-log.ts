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

/** One file of the log: its entries (ids increasing) and its size. */
class Segment {
  readonly entries: EntryPlace[] = [];
  size = 0;

  constructor(readonly fd: number) {}

  /** Reads where the file's entries are; what follows the last whole one (never acknowledged) is cut off. Its last id. */
  scan(): number {
    const fileSize = fstatSync(this.fd).size;
    const header = Buffer.alloc(HEADER_BYTES);
    const trailer = Buffer.alloc(TRAILER_BYTES);
    let offset = 0;
    let last = 0;
    while (offset + HEADER_BYTES + TRAILER_BYTES <= fileSize) {
      readSync(this.fd, header, 0, HEADER_BYTES, offset);
      if (header.readUInt32LE(0) !== MAGIC) break;
      const id = header.readDoubleLE(4);
      const clicksBytes = header.readUInt32LE(12);
      const rowsBytes = header.readUInt32LE(16);
      const end = offset + HEADER_BYTES + clicksBytes + rowsBytes + TRAILER_BYTES;
      if (id <= last || end > fileSize) break;
      readSync(this.fd, trailer, 0, TRAILER_BYTES, end - TRAILER_BYTES);
      if (trailer.readDoubleLE(0) !== id) break;
      this.entries.push({ id, offset, clicksBytes, rowsBytes });
      last = id;
      offset = end;
    }
    if (offset < fileSize) ftruncateSync(this.fd, offset);
    this.size = offset;
    return last;
  }

  /** Appends entry `id`'s parts (`bytes` in all). */
  append(id: number, parts: readonly Buffer[], bytes: number, clicksBytes: number, rowsBytes: number): void {
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
    this.entries.push({ id, offset: this.size, clicksBytes, rowsBytes });
    this.size += bytes;
  }

  /** Empties the file once every entry in it is at most `id`. */
  removeThrough(id: number): void {
    if (this.entries.length === 0 || this.entries[this.entries.length - 1].id > id) return;
    ftruncateSync(this.fd, 0);
    this.entries.length = 0;
    this.size = 0;
  }
}

/**
 * The ingest log of the embedded warehouse (`reporting.duckdb.ingest` and `reporting.duckdb.ingest-2`,
 * 0600): what an ingest wrote into DuckDB's open ingest transaction, appended to the log before the
 * ingest is answered (after the hits' keys and visitor days are committed to the hit-key index). A
 * write(2) that returned survives a crash of the process, as SQLite's commits in WAL mode with
 * synchronous=NORMAL do. DuckDB commits ingested hits by the row group (see DuckDbHitStore); the log
 * holds the ones not committed yet and is replayed into DuckDB at the next open after a crash (or
 * after a failed write). The last entry DuckDB holds is recorded in DuckDB itself, in the transaction
 * that commits it. An entry cut short by a crash (never acknowledged) is cut off at open.
 *
 * Two files, appended in turn (`rotate`): entries logged while a row group commits go to the other
 * file, so each file is emptied once DuckDB holds every entry in it, and the log stays bounded under
 * a steady stream of ingests. Ids increase across both; each file's entries are in id order.
 */
export class IngestLog {
  private readonly segments: [Segment, Segment];
  /** The segment appends go to. */
  private current = 0;
  private nextId = 1;

  private constructor(fds: [number, number]) {
    this.segments = [new Segment(fds[0]), new Segment(fds[1])];
  }

  /** The log's files: `filename` and `filename-2`. */
  static files(filename: string): [string, string] {
    return [filename, `${filename}-2`];
  }

  /** Opens (creating them 0600) the log's files (see `files`) and reads where their entries are. */
  static open(filename: string): IngestLog {
    const files = IngestLog.files(filename);
    for (const file of files) ensurePrivateFile(file);
    const log = new IngestLog([openSync(files[0], 'r+'), openSync(files[1], 'r+')]);
    const lasts = log.segments.map((segment) => segment.scan());
    log.nextId = Math.max(...lasts) + 1;
    // Appends go on in the file of the newest entry.
    log.current = lasts[1] > lasts[0] ? 1 : 0;
    return log;
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
    const bytes = HEADER_BYTES + clicksText.length + rows.length + TRAILER_BYTES;
    this.segments[this.current].append(id, [header, clicksText, rows, trailer], bytes, clicksText.length, rows.length);
    this.nextId = id + 1;
    return id;
  }

  /** Entries from now on go to the other file (a row group's commit begins: its entries are all in the files as they are). */
  rotate(): void {
    this.current = 1 - this.current;
  }

  /** Ids from now on are above `id` (the last one DuckDB recorded). */
  skipTo(id: number): void {
    this.nextId = Math.max(this.nextId, id + 1);
  }

  /** The ids of the entries after `id`, in order. */
  idsAfter(id: number): number[] {
    return this.segments.flatMap((segment) => segment.entries.filter((entry) => entry.id > id).map((entry) => entry.id)).sort((a, b) => a - b);
  }

  /** Entry `id`. */
  entry(id: number): LoggedIngest {
    for (const segment of this.segments) {
      const place = segment.entries.find((entry) => entry.id === id);
      if (!place) continue;
      const body = Buffer.alloc(place.clicksBytes + place.rowsBytes);
      readSync(segment.fd, body, 0, body.length, place.offset + HEADER_BYTES);
      return { id, rows: body.subarray(place.clicksBytes), clicks: JSON.parse(body.toString('utf8', 0, place.clicksBytes)) as LoggedClicks[] };
    }
    throw new Error(`the hit ingest log has no entry ${id}`);
  }

  /** DuckDB holds the entries up to `id`: each file is emptied once it holds no later one. */
  removeThrough(id: number): void {
    for (const segment of this.segments) segment.removeThrough(id);
  }

  close(): void {
    for (const segment of this.segments) closeSync(segment.fd);
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
