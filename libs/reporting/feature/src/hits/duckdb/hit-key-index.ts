import type Database from 'better-sqlite3';

/** An account's hit id and its time (epoch ms). */
export interface HitKey {
  hitId: string;
  timeMs: number;
}

/**
 * Where each stored hit is in time: (account, hitId) -> time_ms, a SQLite B-tree beside the
 * columnar table (DuckDB's own index answers a lookup of 1,000 ids by scanning, ~125 ms over 10M
 * hits; this one in ~2 ms). Reads by id look the times up here, then read the hits with a filter on
 * `time_ms` that DuckDB's zone maps prune to the few row groups holding them.
 *
 * It may hold more than the warehouse, never less: keys are written (committed) before the hits
 * they index, and removed after them, so a crash in between leaves a key without a hit, which a
 * lookup in the warehouse does not find, and no hit without a key.
 */
export class HitKeyIndex {
  private readonly select: Database.Statement<[string, string], { hit_id: string; time_ms: number }>;
  private readonly upsertMany: Database.Statement<[string, string]>;
  private readonly writeAll: Database.Transaction<(keys: readonly (HitKey & { accountId: string })[]) => void>;
  private readonly remove: Database.Statement;
  private readonly removeMany: Database.Transaction<(accountId: string, hitIds: readonly string[]) => void>;

  constructor(private readonly db: Database.Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS hit_keys (
      account_id TEXT    NOT NULL,
      hit_id     TEXT    NOT NULL,
      time_ms    INTEGER NOT NULL,
      PRIMARY KEY (account_id, hit_id)
    ) WITHOUT ROWID`);
    this.select = db.prepare('SELECT hit_id, time_ms FROM hit_keys WHERE account_id = ? AND hit_id IN (SELECT value FROM json_each(?))');
    // One statement for an account's keys (a JSON list of [hitId, timeMs]): about a third of a statement per key.
    this.upsertMany = db.prepare(
      'INSERT INTO hit_keys (account_id, hit_id, time_ms) SELECT ?, value ->> 0, value ->> 1 FROM json_each(?) WHERE true ON CONFLICT DO UPDATE SET time_ms = excluded.time_ms',
    );
    this.writeAll = db.transaction((keys: readonly (HitKey & { accountId: string })[]) => this.upsert(keys));
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

  /** Records (or moves) the keys of hits about to be written, in one transaction. */
  write(keys: readonly (HitKey & { accountId: string })[]): void {
    this.writeAll.immediate(keys);
  }

  /** Records (or moves) keys inside the caller's transaction (a statement per account). */
  upsert(keys: readonly (HitKey & { accountId: string })[]): void {
    const byAccount = new Map<string, [string, number][]>();
    for (const key of keys) {
      let accountKeys = byAccount.get(key.accountId);
      if (!accountKeys) byAccount.set(key.accountId, (accountKeys = []));
      accountKeys.push([key.hitId, key.timeMs]);
    }
    for (const [accountId, accountKeys] of byAccount) this.upsertMany.run(accountId, JSON.stringify(accountKeys));
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
  private readonly insertMany: Database.Statement<[string]>;
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
    // One statement for many days (a JSON list of [accountId, visitorId, day]).
    this.insertMany = db.prepare(
      'INSERT OR IGNORE INTO visitor_days (account_id, visitor_id, day) SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?)',
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
    if (days.length > 0) this.insertMany.run(JSON.stringify(days.map(({ accountId, visitorId, day }) => [accountId, visitorId, day])));
  }

  /** The UTC days in [startMs, endMs) on which the visitor may have hits, ascending. */
  days(accountId: string, visitorId: string, startMs: number, endMs: number): number[] {
    return this.select.all(accountId, visitorId, Math.floor(startMs / DAY_MS), Math.floor((endMs - 1) / DAY_MS));
  }
}
