import type { RoutingSession } from '@funnel/routing';

/** Nest token of the edge's SessionStore (embedded in standalone mode, JetStream KV in distributed mode). */
export const SESSION_STORE = Symbol('SESSION_STORE');

/** A get or put on a SessionStore after its `close()` began: refused, the store touches nothing (no thread, no file, no message). */
export class SessionStoreClosedError extends Error {
  constructor() {
    super('the session store is closed');
    this.name = 'SessionStoreClosedError';
  }
}

/**
 * Visitor sessions of the tracking edge: the engine's RoutingSession, kept between a visitor's
 * requests, keyed by visitor id within one account (the same visitor id in another account is
 * another session, never this one). A session lives SESSION_TTL after its last put; every put
 * renews it. A store keeps each session within SESSION_CAPS (@funnel/edge-domain).
 * Adapters: SqliteSessionStore (standalone, a file under DATA_DIR) and KvSessionStore (distributed,
 * the JetStream KV bucket EDGE_SESSIONS shared by every edge replica). One contract suite runs on both.
 * Once `close()` is called, every get and put rejects with SessionStoreClosedError.
 */
export interface SessionStore {
  /**
   * The visitor's live session in the account; null when there is none: unknown, expired, or an
   * account or visitor id that cannot name a session (SESSION_KEY_PART: anything a visitor sends as
   * `vid` may be asked for). Rejects only when the store itself fails (NATS unreachable, disk error)
   * or is closed (SessionStoreClosedError).
   */
  get(accountId: string, visitorId: string): Promise<RoutingSession | null>;
  /**
   * Stores the session after a step (under `session.visitorId`), within SESSION_CAPS, and renews its
   * time to live. Rejects with InvalidSessionKeyError when an id cannot name a session, with
   * SessionStoreClosedError once the store is closed, and when the store fails.
   */
  put(accountId: string, session: RoutingSession): Promise<void>;
  /**
   * Refuses the gets and puts made from now on, writes what is pending and lets go of the store's
   * resources (not of a NATS connection it was given). A second call resolves too.
   */
  close(): Promise<void>;
}
