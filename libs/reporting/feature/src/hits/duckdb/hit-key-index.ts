import type Database from 'better-sqlite3';
import { MultiRowInsert } from '@funnel/eventstore';

/** An account's hit id and its time (epoch ms). */
export interface HitKey {
  hitId: string;
  timeMs: number;
}

/** Where a stored hit is: its time (epoch ms) and its sequence number (the `hit_seq` of its row in the warehouse). */
export interface HitPlace {
  timeMs: number;
  seq: number;
}

/** Sequence numbers reserved in SQLite at a time (see HitKeyIndex.reserve). */
const SEQ_BLOCK = 65_536;

/** A key as it is written: the account's hit id, its time and its sequence number. */
export type NumberedKey = HitKey & { accountId: string; seq: number };

/**
 * Where each stored hit is in time: (account, hitId) -> time_ms, a SQLite B-tree beside the
 * columnar table (DuckDB's own index answers a lookup of 1,000 ids by scanning, ~125 ms over 10M
 * hits; this one in ~2 ms). Reads by id look the times up here, then read the hits with a filter on
 * `time_ms` that DuckDB's zone maps prune to the few row groups holding them.
 *
 * It may hold more than the warehouse, never less: keys are written (committed) before the hits
 * they index, and removed after them, so a crash in between leaves a key without a hit, which a
 * lookup in the warehouse does not find, and no hit without a key.
 *
 * Each key also holds its hit's sequence number (`hit_seq`, stored in the hit's row too): numbers
 * handed out once each (`reserve`), so the reads and updates of the apply path find
 * their rows by an integer, not by the id's text (see `locate`). A key without one (a hit stored
 * before they existed, numbered at the warehouse's next open) is not located.
 */
export class HitKeyIndex {
  private readonly select: Database.Statement<[string, string], { hit_id: string; time_ms: number }>;
  private readonly selectPlaces: Database.Statement<[string, string], { hit_id: string; time_ms: number; hit_seq: number }>;
  private readonly reserveSeqs: Database.Statement<[number, number], number>;
  /** The numbers reserved in SQLite and not handed out yet: [nextSeq, reservedEnd). */
  private nextSeq = 0;
  private reservedEnd = 0;
  private readonly numberMany: Database.Statement<[string]>;
  private readonly upsertMany: MultiRowInsert<NumberedKey>;
  private readonly writeAll: Database.Transaction<(keys: readonly NumberedKey[]) => void>;
  private readonly remove: Database.Statement;
  private readonly removeMany: Database.Transaction<(accountId: string, hitIds: readonly string[]) => void>;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS hit_keys (
      account_id TEXT    NOT NULL,
      hit_id     TEXT    NOT NULL,
      time_ms    INTEGER NOT NULL,
      hit_seq    INTEGER,
      PRIMARY KEY (account_id, hit_id)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS hit_seq_next (next INTEGER NOT NULL);
    INSERT INTO hit_seq_next (next) SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM hit_seq_next)`);
    // A file of the previous version: its keys get their numbers when the warehouse numbers its hits.
    const columns = db.pragma('table_info(hit_keys)') as { name: string }[];
    if (!columns.some((column) => column.name === 'hit_seq')) db.exec('ALTER TABLE hit_keys ADD COLUMN hit_seq INTEGER');
    this.select = db.prepare('SELECT hit_id, time_ms FROM hit_keys WHERE account_id = ? AND hit_id IN (SELECT value FROM json_each(?))');
    this.selectPlaces = db.prepare(
      'SELECT hit_id, time_ms, hit_seq FROM hit_keys WHERE account_id = ? AND hit_id IN (SELECT value FROM json_each(?)) AND hit_seq IS NOT NULL',
    );
    this.reserveSeqs = db.prepare<[number, number], number>('UPDATE hit_seq_next SET next = next + ? RETURNING next - ?').pluck();
    this.numberMany = db.prepare(
      'UPDATE hit_keys SET hit_seq = value ->> 2 FROM json_each(?) WHERE hit_keys.account_id = value ->> 0 AND hit_keys.hit_id = value ->> 1',
    );
    // Many keys a statement (about half a statement per key).
    this.upsertMany = new MultiRowInsert<NumberedKey>(
      db,
      'INSERT INTO hit_keys (account_id, hit_id, time_ms, hit_seq)',
      4,
      'ON CONFLICT DO UPDATE SET time_ms = excluded.time_ms, hit_seq = excluded.hit_seq',
      (key, params) => params.push(key.accountId, key.hitId, key.timeMs, key.seq),
    );
    this.writeAll = db.transaction((keys: readonly NumberedKey[]) => this.upsert(keys));
    this.remove = db.prepare('DELETE FROM hit_keys WHERE account_id = ? AND hit_id = ?');
    this.removeMany = db.transaction((accountId: string, hitIds: readonly string[]) => {
      for (const hitId of hitIds) this.remove.run(accountId, hitId);
    });
  }

  /** The times of the account's ids that have a key (a key may outlive its hit, see the class comment). */
  lookup(accountId: string, hitIds: readonly string[]): Map<string, number> {
    const found = new Map<string, number>();
    if (hitIds.length === 0) return found;
    for (const row of this.select.all(accountId, JSON.stringify(hitIds))) found.set(row.hit_id, row.time_ms);
    return found;
  }

  /** The times and sequence numbers of the account's ids that have a numbered key (a key may outlive its hit, see the class comment). */
  locate(accountId: string, hitIds: readonly string[]): Map<string, HitPlace> {
    const found = new Map<string, HitPlace>();
    if (hitIds.length === 0) return found;
    for (const row of this.selectPlaces.all(accountId, JSON.stringify(hitIds))) found.set(row.hit_id, { timeMs: row.time_ms, seq: row.hit_seq });
    return found;
  }

  /**
   * `count` consecutive sequence numbers never handed out before: the first of them. They come from a
   * block of at least SEQ_BLOCK reserved in SQLite (committed at once, so a crash or a close skips the
   * rest of a block, never repeats a number), so a small ingest does not write SQLite for them.
   */
  reserve(count: number): number {
    if (this.reservedEnd - this.nextSeq < count) {
      const size = Math.max(count, SEQ_BLOCK);
      this.nextSeq = this.reserveSeqs.get(size, size)!;
      this.reservedEnd = this.nextSeq + size;
    }
    const first = this.nextSeq;
    this.nextSeq += count;
    return first;
  }

  /** Sets the sequence numbers of keys written before they had one ([accountId, hitId, seq] each), in one transaction. */
  number(seqs: readonly [string, string, number][]): void {
    if (seqs.length > 0) this.db.transaction(() => this.numberMany.run(JSON.stringify(seqs))).immediate();
  }

  /** Records (or moves) the keys of hits about to be written, with their sequence numbers, in one transaction. */
  write(keys: readonly NumberedKey[]): void {
    this.writeAll.immediate(keys);
  }

  /** Records (or moves) keys inside the caller's transaction. */
  upsert(keys: readonly NumberedKey[]): void {
    this.upsertMany.run(keys);
  }

  /** Forgets the keys of removed hits. */
  delete(accountId: string, hitIds: readonly string[]): void {
    if (hitIds.length > 0) this.removeMany.immediate(accountId, hitIds);
  }
}

/** A UTC day: epoch milliseconds divided by a day. */
export const DAY_MS = 86_400_000;

/** A visitor of an account seen on a UTC day. */
export interface VisitorDay {
  accountId: string;
  visitorId: string;
  day: number;
}

/**
 * On which UTC days each visitor has hits: (account, visitor, day), a SQLite B-tree beside the
 * columnar table. Visitor ids are in no order of the rows, so a visitor's hits over a month are a
 * scan of the month's visitor column (~100-300 ms over 10M hits); with the days known, the lookup
 * reads only the row groups of those days. Like the hit keys it may hold more than the warehouse
 * (written before the hits, never removed with them: a reset leaves days without hits, which cost
 * a lookup a few row groups), never less.
 */
export class VisitorDayIndex {
  private readonly insert: Database.Statement<[string, string, number]>;
  private readonly insertMany: MultiRowInsert<VisitorDay>;
  private readonly select: Database.Statement<[string, string, number, number], number>;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS visitor_days (
      account_id TEXT    NOT NULL,
      visitor_id TEXT    NOT NULL,
      day        INTEGER NOT NULL,
      PRIMARY KEY (account_id, visitor_id, day)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS warehouse_indexes (name TEXT PRIMARY KEY, built INTEGER NOT NULL) WITHOUT ROWID`);
    this.insert = db.prepare('INSERT OR IGNORE INTO visitor_days (account_id, visitor_id, day) VALUES (?, ?, ?)');
    this.select = db
      .prepare<[string, string, number, number], number>(
        'SELECT day FROM visitor_days WHERE account_id = ? AND visitor_id = ? AND day >= ? AND day <= ? ORDER BY day',
      )
      .pluck();
    // Many days a statement.
    this.insertMany = new MultiRowInsert<VisitorDay>(db, 'INSERT OR IGNORE INTO visitor_days (account_id, visitor_id, day)', 3, '', (day, params) =>
      params.push(day.accountId, day.visitorId, day.day),
    );
  }

  /** Whether the index covers every hit stored before it existed (see `build`). */
  get built(): boolean {
    return this.db.prepare('SELECT built FROM warehouse_indexes WHERE name = ?').pluck().get('visitor_days') === 1;
  }

  /** Fills the index from the hits already stored (a warehouse written before it existed), in one transaction, then marks it built. */
  build(days: Iterable<VisitorDay>): void {
    this.db
      .transaction(() => {
        for (const { accountId, visitorId, day } of days) this.insert.run(accountId, visitorId, day);
        this.db.prepare('INSERT OR REPLACE INTO warehouse_indexes (name, built) VALUES (?, 1)').run('visitor_days');
      })
      .immediate();
  }

  /** Records the days of hits about to be written (each (account, visitor, day) once). */
  write(days: readonly VisitorDay[]): void {
    this.insertMany.run(days);
  }

  /** The UTC days in [startMs, endMs) on which the visitor may have hits, ascending. */
  days(accountId: string, visitorId: string, startMs: number, endMs: number): number[] {
    return this.select.all(accountId, visitorId, Math.floor(startMs / DAY_MS), Math.floor((endMs - 1) / DAY_MS));
  }
}

/** Reads whose places PlaceCache keeps (the oldest are forgotten first). */
const KEPT_READS = 16;

/**
 * The places of the hits the last reads found (`getHitStates`), by account: the update committing
 * their new states finds their rows by them without asking the hit-key index again (a lookup of
 * 1,000 ids costs the JS thread about 2 ms). Each read's places are kept as they are, newest first.
 * A stored hit's place never changes; removing hits of an account drops what is kept of it, and a
 * read that ran while hits were removed keeps nothing (its `generation`, taken when it began, is then
 * behind), so a place kept is one of a hit stored now.
 */
export class PlaceCache {
  private readonly reads: { accountId: string; places: ReadonlyMap<string, HitPlace> }[] = [];
  private removals = 0;

  /** Counts removals: pass it to `keep` with the places of a read begun after it. */
  get generation(): number {
    return this.removals;
  }

  /** Keeps the places of the hits a read found, when nothing was removed since `generation` (the read's start). */
  keep(accountId: string, places: ReadonlyMap<string, HitPlace>, generation: number): void {
    if (generation !== this.removals || places.size === 0) return;
    this.reads.unshift({ accountId, places });
    if (this.reads.length > KEPT_READS) this.reads.pop();
  }

  /** The places kept of the account's ids (the newest read's), and the ids not kept. */
  get(accountId: string, hitIds: readonly string[]): { found: Map<string, HitPlace>; missing: string[] } {
    const found = new Map<string, HitPlace>();
    const missing: string[] = [];
    const reads = this.reads.filter((read) => read.accountId === accountId).map((read) => read.places);
    for (const hitId of hitIds) {
      let place: HitPlace | undefined;
      for (let i = 0; place === undefined && i < reads.length; i++) place = reads[i].get(hitId);
      if (place) found.set(hitId, place);
      else missing.push(hitId);
    }
    return { found, missing };
  }

  /** The account's hits were removed (committed): what is kept of it is dropped. */
  removed(accountId: string): void {
    this.removals += 1;
    for (let i = this.reads.length - 1; i >= 0; i--) if (this.reads[i].accountId === accountId) this.reads.splice(i, 1);
  }
}
