import { EDGE_SESSIONS_BUCKET } from '@funnel/contracts';
import { InvalidSessionKeyError, decodeSession, encodeSession, isSessionKeyPart, sessionKey } from '@funnel/edge-domain';
import type { RoutingSession } from '@funnel/routing';
import { type KV, type NatsConnection, nanos } from 'nats';
import { JetStreamPublisher } from '../jetstream/jetstream-publisher';
import { type SessionStore, SessionStoreClosedError } from './session-store';

export interface KvSessionStoreOptions {
  /** A connection of the tracking edge's NATS user (its reply inboxes); the store never closes it. */
  connection: NatsConnection;
  /** How long a session lives after its last put (SESSION_TTL): the bucket's max age. */
  ttlMs: number;
  /** The bucket (default EDGE_SESSIONS); tests use their own. */
  bucket?: string;
  /** How long a get or put waits for JetStream before it rejects (default 2000 ms): a visitor is waiting. */
  timeoutMs?: number;
  /** Replicas of the bucket's stream when it is created (default 1; 3 on a JetStream cluster). */
  replicas?: number;
}

const DEFAULT_TIMEOUT_MS = 2000;

/**
 * The distributed session store: the JetStream KV bucket EDGE_SESSIONS, shared by every edge
 * replica. Key `<accountId>.<visitorId>` (both without dots, SESSION_KEY_PART, so no key of one
 * account is a key of another), value the session's JSON, one revision kept per key. The bucket's
 * max age is the TTL: JetStream drops a session TTL after its last put (each put is a new message,
 * so it renews the age). Reads go to the stream's leader (no direct get), so a visitor's next
 * request sees the put of the previous one on any replica. A put is the KV's own write, a message to
 * `$KV.<bucket>.<key>` of the bucket's stream, sent through a JetStreamPublisher (many in flight,
 * each answered once stored) rather than nats.js's `kv.put` request: it leaves at once, in the
 * turn of the event loop that made it, with the request's hits, in one socket write.
 */
export class KvSessionStore implements SessionStore {
  private closed = false;
  /** The puts not yet acknowledged (settled either way): `close()` waits for them. */
  private readonly putting = new Set<Promise<unknown>>();

  private constructor(
    private readonly kv: KV,
    private readonly subjectPrefix: string,
    private readonly puts: JetStreamPublisher,
  ) {}

  /** Opens the bucket, creating it (or updating its max age to `ttlMs`) as needed. */
  static async open(options: KvSessionStoreOptions): Promise<KvSessionStore> {
    const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const bucket = options.bucket ?? EDGE_SESSIONS_BUCKET;
    const js = options.connection.jetstream({ timeout });
    const kv = await js.views.kv(bucket, { ttl: options.ttlMs, history: 1, replicas: options.replicas ?? 1, allow_direct: false, timeout });
    const { streamInfo } = await kv.status();
    const maxAge = nanos(options.ttlMs);
    if (streamInfo.config.max_age !== maxAge) {
      // A bucket made with another SESSION_TTL: the last edge to start sets it (sessions then live the new TTL after their last put).
      const jsm = await options.connection.jetstreamManager({ timeout });
      const duplicateWindow = Math.min(streamInfo.config.duplicate_window, maxAge);
      await jsm.streams.update(streamInfo.config.name, { ...streamInfo.config, max_age: maxAge, duplicate_window: duplicateWindow });
    }
    return new KvSessionStore(kv, `$KV.${bucket}.`, new JetStreamPublisher({ connection: options.connection, ackTimeoutMs: timeout }));
  }

  async get(accountId: string, visitorId: string): Promise<RoutingSession | null> {
    if (this.closed) throw new SessionStoreClosedError();
    if (!isSessionKeyPart(accountId) || !isSessionKeyPart(visitorId)) return null;
    const entry = await this.kv.get(sessionKey(accountId, visitorId));
    if (!entry || entry.operation !== 'PUT') return null;
    return decodeSession(entry.string(), visitorId);
  }

  put(accountId: string, session: RoutingSession): Promise<void> {
    if (this.closed) return Promise.reject(new SessionStoreClosedError());
    if (!isSessionKeyPart(accountId)) return Promise.reject(new InvalidSessionKeyError('accountId'));
    if (!isSessionKeyPart(session.visitorId)) return Promise.reject(new InvalidSessionKeyError('visitorId'));
    // Buffer.from rather than TextEncoder: the same UTF-8 bytes, from Node's buffer pool (TextEncoder allocates each array natively, about 1.5 µs more).
    const stored = this.puts.publish([{ subject: this.subjectPrefix + sessionKey(accountId, session.visitorId), data: Buffer.from(encodeSession(session)) }]);
    const settled = stored.catch(() => undefined);
    this.putting.add(settled);
    void settled.then(() => this.putting.delete(settled));
    return stored;
  }

  async close(): Promise<void> {
    // Puts made before are stored first; the connection is the caller's: only the puts' acknowledgement inbox is let go.
    this.closed = true;
    while (this.putting.size > 0) await Promise.all(this.putting);
    this.puts.close();
  }
}
