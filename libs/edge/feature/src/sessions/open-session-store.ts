import type { NatsConnection } from 'nats';
import { KvSessionStore } from './kv-session-store';
import type { SessionStore } from './session-store';
import { SqliteSessionStore } from './sqlite-session-store';

/** Where the sessions live: a file (standalone) or the KV bucket over the edge's NATS connection (distributed). */
export type SessionStoreSettings =
  | {
      mode: 'embedded';
      /** `dataDirFile(DATA_DIR, SESSION_STORE_FILE)` (@funnel/runtime makes sure of DATA_DIR). */
      filename: string;
      /** SESSION_TTL. */
      ttlMs: number;
      /** SESSION_SWEEP_INTERVAL. */
      sweepIntervalMs: number;
    }
  | {
      mode: 'kv';
      /** The tracking edge's NATS connection (its user and inbox prefix); not closed by the store. */
      connection: NatsConnection;
      /** SESSION_TTL. */
      ttlMs: number;
      /** Bucket replicas when it is created (3 on a JetStream cluster); default 1. */
      replicas?: number;
    };

/**
 * The edge's SessionStore for its mode. Wire it as `{ provide: SESSION_STORE, useFactory: () =>
 * openSessionStore(...) }` and close it on shutdown, after the visitor routes stopped taking requests.
 */
export async function openSessionStore(settings: SessionStoreSettings): Promise<SessionStore> {
  if (settings.mode === 'embedded') {
    return new SqliteSessionStore({ filename: settings.filename, ttlMs: settings.ttlMs, sweepIntervalMs: settings.sweepIntervalMs });
  }
  return KvSessionStore.open({ connection: settings.connection, ttlMs: settings.ttlMs, replicas: settings.replicas });
}
