import type Database from 'better-sqlite3';
import { openPrivateSqlite, writingTo } from '@funnel/eventstore';
import type { RoutingSession } from '@funnel/routing';
import { InvalidSessionKeyError, decodeSession, encodeSession, isSessionKeyPart } from '@funnel/edge-domain';
import type { SessionStore } from './session-store';

export interface SqliteSessionStoreOptions {
  /** The SQLite file (standalone: `<DATA_DIR>/edge-sessions.sqlite`), created 0600 when absent; `:memory:` for a throwaway store. */
  filename: string;
  /** How long a session lives after its last put (SESSION_TTL). */
  ttlMs: number;
  /** How often expired rows are deleted (SESSION_SWEEP_INTERVAL, default 5 min); 0: only by `sweep()`. */
  sweepIntervalMs?: number;
  /** The clock, epoch ms (tests). */
  now?: () => number;
}

/** Expired rows deleted per statement: a sweep of many rows yields to the event loop between batches. */
const SWEEP_BATCH = 500;
const DEFAULT_SWEEP_INTERVAL_MS = 5 * 60_000;
const STORE_NAME = 'edge sessions';

type SessionRow = { session: string };

/**
 * The embedded session store: one row per (account, visitor) in a SQLite file (WAL, synchronous
 * NORMAL: a put survives a crash of the process, as the queue and event log files do), so sessions
 * survive a restart. A row holds its expiry; a read ignores an expired row, and a timer deletes
 * them in small batches. better-sqlite3 is synchronous: a get or put is one prepared statement on
 * the event loop, a few µs (tools/bench/edge-sessions.bench.ts).
 */
export class SqliteSessionStore implements SessionStore {
  private readonly db: Database.Database;
  private readonly select: Database.Statement<[string, string, number], SessionRow>;
  private readonly upsert: Database.Statement<[string, string, number, string]>;
  private readonly deleteExpired: Database.Statement<[number, number]>;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;

  constructor(options: SqliteSessionStoreOptions) {
    this.ttlMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.db = openPrivateSqlite(options.filename);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS edge_sessions (
        account_id TEXT    NOT NULL,
        visitor_id TEXT    NOT NULL,
        expires_ms INTEGER NOT NULL,
        session    TEXT    NOT NULL,
        PRIMARY KEY (account_id, visitor_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS edge_sessions_expiry ON edge_sessions (expires_ms);`);
    this.select = this.db.prepare('SELECT session FROM edge_sessions WHERE account_id = ? AND visitor_id = ? AND expires_ms > ?');
    this.upsert = this.db.prepare(
      `INSERT INTO edge_sessions (account_id, visitor_id, expires_ms, session) VALUES (?, ?, ?, ?)
       ON CONFLICT (account_id, visitor_id) DO UPDATE SET expires_ms = excluded.expires_ms, session = excluded.session`,
    );
    this.deleteExpired = this.db.prepare(
      `DELETE FROM edge_sessions WHERE (account_id, visitor_id) IN
         (SELECT account_id, visitor_id FROM edge_sessions WHERE expires_ms <= ? ORDER BY expires_ms LIMIT ?)`,
    );
    const interval = options.sweepIntervalMs ?? DEFAULT_SWEEP_INTERVAL_MS;
    if (interval > 0) {
      this.timer = setInterval(() => void this.sweep().catch(() => undefined), interval);
      this.timer.unref();
    }
  }

  async get(accountId: string, visitorId: string): Promise<RoutingSession | null> {
    if (!isSessionKeyPart(accountId) || !isSessionKeyPart(visitorId)) return null;
    const row = this.select.get(accountId, visitorId, this.now());
    return row ? decodeSession(row.session, visitorId) : null;
  }

  async put(accountId: string, session: RoutingSession): Promise<void> {
    if (!isSessionKeyPart(accountId)) throw new InvalidSessionKeyError('accountId');
    if (!isSessionKeyPart(session.visitorId)) throw new InvalidSessionKeyError('visitorId');
    const text = encodeSession(session);
    writingTo(STORE_NAME, () => this.upsert.run(accountId, session.visitorId, this.now() + this.ttlMs, text));
  }

  /**
   * Deletes the expired rows, a batch at a time with a turn of the event loop between batches;
   * resolves with how many it deleted. A sweep already running is joined, not doubled.
   */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepAll().finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  private async sweepAll(): Promise<number> {
    const cutoff = this.now();
    let deleted = 0;
    for (;;) {
      if (!this.db.open) return deleted;
      const { changes } = writingTo(STORE_NAME, () => this.deleteExpired.run(cutoff, SWEEP_BATCH));
      deleted += changes;
      if (changes < SWEEP_BATCH) return deleted;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.sweeping;
    if (this.db.open) this.db.close();
  }
}
