import type Database from 'better-sqlite3';
import { SqliteWriterThread, openPrivateSqlite, packRows } from '@funnel/eventstore';
import type { RoutingSession } from '@funnel/routing';
import { InvalidSessionKeyError, decodeSession, encodeSession, isSessionKeyPart, sessionKey } from '@funnel/edge-domain';
import { type SessionStore, SessionStoreClosedError } from './session-store';

export interface SqliteSessionStoreOptions {
  /** The SQLite file (standalone: `<DATA_DIR>/edge-sessions.sqlite`), created 0600 when absent. */
  filename: string;
  /** How long a session lives after its last put (SESSION_TTL). */
  ttlMs: number;
  /** How often expired rows are deleted (SESSION_SWEEP_INTERVAL, default 5 min); 0: only by `sweep()`. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms (tests). */
  now?: () => number;
}

/** Expired rows deleted per statement: puts sent meanwhile are written between two batches. */
const SWEEP_BATCH = 500;
const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;
const STORE_NAME = 'edge sessions';

const TABLE_SQL = `
  CREATE TABLE IF NOT EXISTS edge_sessions (
    account_id TEXT    NOT NULL,
    visitor_id TEXT    NOT NULL,
    expires_ms INTEGER NOT NULL,
    session    TEXT    NOT NULL,
    PRIMARY KEY (account_id, visitor_id)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS edge_sessions_expiry ON edge_sessions (expires_ms);`;
const UPSERT_SQL = `INSERT INTO edge_sessions (account_id, visitor_id, expires_ms, session) VALUES (?, ?, ?, ?)
  ON CONFLICT (account_id, visitor_id) DO UPDATE SET expires_ms = excluded.expires_ms, session = excluded.session`;
const SWEEP_SQL = `DELETE FROM edge_sessions WHERE (account_id, visitor_id) IN
  (SELECT account_id, visitor_id FROM edge_sessions WHERE expires_ms <= ? ORDER BY expires_ms LIMIT ?)`;

/** One row to write: account, visitor, expiry (epoch ms), the session's JSON. */
type SessionRow = [accountId: string, visitorId: string, expiresMs: number, session: string];

/** A put not yet written: what gets answer meanwhile. */
interface PendingPut {
  key: string;
  expiresMs: number;
  text: string;
}

/** The puts sent to the writer together, and their write. */
interface PutBatch {
  rows: SessionRow[];
  puts: PendingPut[];
  written: Promise<void>;
}

/**
 * The embedded session store: one row per (account, visitor) in a SQLite file (WAL, synchronous
 * NORMAL: a written put survives a crash of the process, as the queue and event log files do), so
 * sessions survive a restart. A row holds its expiry; a read ignores an expired row, and a timer
 * deletes them in small batches.
 *
 * Reads are one indexed SELECT on the event loop (a few µs). Writes leave it: the puts of one turn
 * of the event loop, and of the turns after it while the previous write is under way (group
 * commit: one write in flight, so batches grow with the load), go to a writer thread as one
 * transaction, and are answered from memory until written, so the visitor's next request sees
 * them at once; a put resolves once its row is written.
 */
export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string, string, number], { session: string }>;
  private readonly writer: SqliteWriterThread;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly pending = new Map<string, PendingPut>();
  private batch: PutBatch | undefined;
  /** The last batch sent (settled either way): the next one is sent after it. */
  private lastWrite: Promise<unknown> = Promise.resolve();
  private readonly writing = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  /** Set by `close()`: gets, puts and sweeps are refused from then on. */
  private closing: Promise<void> | undefined;

  constructor(options: SqliteSessionStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.db = openPrivateSqlite(options.filename);
    this.db.exec(TABLE_SQL);
    this.select = this.db.prepare('SELECT session FROM edge_sessions WHERE account_id = ? AND visitor_id = ? AND expires_ms > ?');
    this.writer = new SqliteWriterThread({
      filename: options.filename,
      statements: { upsert: UPSERT_SQL, sweep: SWEEP_SQL },
      store: STORE_NAME,
      closedError: () => new SessionStoreClosedError(),
    });
    this.writer.start();
    const interval = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => void this.sweep().catch(() => undefined), interval);
      this.timer.unref();
    }
  }

  async get(accountId: string, visitorId: string): Promise<RoutingSession | null> {
    if (this.closing) throw new SessionStoreClosedError();
    if (!isSessionKeyPart(accountId) || !isSessionKeyPart(visitorId)) return null;
    const now = this.now();
    const unwritten = this.pending.get(sessionKey(accountId, visitorId));
    if (unwritten) return unwritten.expiresMs > now ? decodeSession(unwritten.text, visitorId) : null;
    const row = this.select.get(accountId, visitorId, now);
    return row ? decodeSession(row.session, visitorId) : null;
  }

  put(accountId: string, session: RoutingSession): Promise<void> {
    if (this.closing) return Promise.reject(new SessionStoreClosedError());
    if (!isSessionKeyPart(accountId)) return Promise.reject(new InvalidSessionKeyError('accountId'));
    if (!isSessionKeyPart(session.visitorId)) return Promise.reject(new InvalidSessionKeyError('visitorId'));
    const put: PendingPut = { key: sessionKey(accountId, session.visitorId), expiresMs: this.now() + this.ttlMs, text: encodeSession(session) };
    this.pending.set(put.key, put);
    const batch = this.currentBatch();
    batch.rows.push([accountId, session.visitorId, put.expiresMs, put.text]);
    batch.puts.push(put);
    // The batch's promise, shared by its puts (no promise and closure made per put).
    return batch.written;
  }

  /** The batch puts join: sent to the writer at the end of this turn of the event loop, or once the write before it is done. */
  private currentBatch(): PutBatch {
    if (this.batch) return this.batch;
    const rows: SessionRow[] = [];
    const puts: PendingPut[] = [];
    const previous = this.lastWrite;
    const written = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => previous)
      .then(() => {
        if (this.batch?.rows === rows) this.batch = undefined;
        // Packed into one string: one copy to the thread rather than an array per row to structured-clone.
        return this.writer.run('upsert', packRows(rows)).then(() => undefined);
      });
    this.lastWrite = written.catch(() => undefined);
    const tracked = written.catch(() => undefined);
    this.writing.add(tracked);
    void tracked.finally(() => this.writing.delete(tracked));
    // Written (or failed: the file then answers what it holds): memory stops answering for the batch's puts, unless later puts replaced them.
    const settled = written.finally(() => {
      for (const put of puts) if (this.pending.get(put.key) === put) this.pending.delete(put.key);
    });
    this.batch = { rows, puts, written: settled };
    return this.batch;
  }

  /**
   * Deletes the expired rows, a batch at a time in the writer thread; resolves with how many it
   * deleted. A sweep already running is joined, not doubled; refused once the store is closed.
   */
  sweep(): Promise<number> {
    if (this.closing) return Promise.reject(new SessionStoreClosedError());
    this.sweeping ??= this.sweepAll().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepAll(): Promise<number> {
    const cutoff = this.now();
    let deleted = 0;
    for (;;) {
      const changes = await this.writer.run('sweep', [[cutoff, SWEEP_BATCH]]);
      deleted += changes;
      if (changes < SWEEP_BATCH) return deleted;
    }
  }

  close(): Promise<void> {
    this.closing ??= this.closeOnce();
    return this.closing;
  }

  private async closeOnce(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping?.catch(() => undefined);
    while (this.writing.size > 0) await Promise.all(this.writing);
    await this.writer.close();
    if (this.db.open) this.db.close();
  }
}
