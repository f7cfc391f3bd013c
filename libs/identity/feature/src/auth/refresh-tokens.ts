import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { EventStore, RecordedEvent, WrongExpectedRevisionError } from '@funnel/eventstore';
import { ReadStore } from '@funnel/readstore';
import { ProjectionRunner, guardedReplace, writeGuarded } from '@funnel/projections';
import { RefreshTokenIssued, RefreshTokensRevoked, SessionEvent, SessionStreams, newOpaqueToken, tokenDigest } from '@funnel/identity-domain';

/** At most this many refresh tokens are active per user; issuing one more revokes the oldest. */
export const MAX_ACTIVE_REFRESH_TOKENS = 100;

interface ActiveToken {
  tokenId: string;
  digest: string;
  issuedAt: number;
  expiresAt: number;
}

/** One document per user: the active refresh tokens (digests only), oldest first. */
interface SessionsDocument {
  _id: string;
  [key: string]: unknown;
  accountId: string;
  active: ActiveToken[];
  revision: number;
}

const APPEND_ATTEMPTS = 3;

/**
 * Refresh tokens: opaque random strings stored as SHA-256 digests in the user's `sessions-` stream,
 * projected into one document per user. Issuing decides the per-user cap from that document and
 * appends with its revision expected, so two concurrent logins cannot both skip a revocation.
 */
export class RefreshTokens {
  private readonly logger = new Logger(RefreshTokens.name);
  private readonly sessions;
  private readonly runner: ProjectionRunner;

  constructor(
    private readonly eventStore: EventStore,
    readStore: ReadStore,
    private readonly settings: { refreshTokenTtlSeconds: number },
    private readonly clock: () => number,
  ) {
    this.sessions = readStore.collection<SessionsDocument>('identity_sessions');
    this.runner = new ProjectionRunner({
      name: 'identity-sessions',
      eventStore,
      readStore,
      streamNamePrefixes: [SessionStreams.sessionsPrefix],
      apply: (events) => this.project(events),
      onError: (error) => this.logger.error(`sessions projection stopped: ${error.message}`),
    });
  }

  start(): Promise<void> {
    return this.runner.start();
  }

  stop(): Promise<void> {
    return this.runner.stop();
  }

  get ready(): boolean {
    return this.runner.ready;
  }

  /** Issues a token for the user, revoking the oldest active ones beyond the cap. */
  async issue(userId: string, accountId: string): Promise<{ token: string; expiresAt: number }> {
    const token = newOpaqueToken('frt');
    const issuedAt = Math.floor(this.clock() / 1000);
    const expiresAt = issuedAt + this.settings.refreshTokenTtlSeconds;
    const issued: RefreshTokenIssued = {
      type: 'RefreshTokenIssued',
      data: { tokenId: randomUUID(), digest: tokenDigest(token), userId, accountId, issuedAt, expiresAt },
    };
    await this.appendDecided(userId, (active, expired) => {
      const surplus = active.length + 1 - MAX_ACTIVE_REFRESH_TOKENS;
      const events: SessionEvent[] = [];
      // Expired tokens leave the document here, so it never holds more than the cap.
      if (expired.length) events.push({ type: 'RefreshTokensRevoked', data: { tokenIds: expired.map((t) => t.tokenId), reason: 'expired' } });
      if (surplus > 0) events.push({ type: 'RefreshTokensRevoked', data: { tokenIds: active.slice(0, surplus).map((t) => t.tokenId), reason: 'cap' } });
      events.push(issued);
      return events;
    });
    return { token, expiresAt };
  }

  /** Whether `token` is an active, unexpired refresh token of this user. */
  async isActive(userId: string, token: string): Promise<boolean> {
    const digest = tokenDigest(token);
    const doc = await this.sessions.findOne({ _id: userId });
    const now = Math.floor(this.clock() / 1000);
    return !!doc?.active.some((t) => t.digest === digest && t.expiresAt > now);
  }

  /** Revokes every active refresh token of the user; answers how many. */
  async revokeAll(userId: string): Promise<number> {
    let count = 0;
    await this.appendDecided(userId, (active) => {
      count = active.length;
      return active.length ? [{ type: 'RefreshTokensRevoked', data: { tokenIds: active.map((t) => t.tokenId), reason: 'user' } }] : [];
    });
    return count;
  }

  /**
   * Decides events from the user's current active tokens and appends them with the document's
   * revision expected; on a concurrent change, waits for the projection and decides again.
   */
  private async appendDecided(userId: string, decide: (active: ActiveToken[], expired: ActiveToken[]) => SessionEvent[]): Promise<void> {
    const stream = SessionStreams.sessions(userId);
    for (let attempt = 1; ; attempt++) {
      const doc = await this.sessions.findOne({ _id: userId });
      const now = Math.floor(this.clock() / 1000);
      const tokens = doc?.active ?? [];
      const events = decide(
        tokens.filter((t) => t.expiresAt > now),
        tokens.filter((t) => t.expiresAt <= now),
      );
      if (!events.length) return;
      try {
        const result = await this.eventStore.append(
          stream,
          events.map((e) => ({ ...e, metadata: { schemaVersion: 1, occurredAt: new Date(this.clock()).toISOString() } })),
          { expectedRevision: doc ? doc.revision : 'no_stream' },
        );
        await this.runner.waitFor(result.position);
        return;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || attempt >= APPEND_ATTEMPTS) throw error;
        await this.runner.waitFor(await this.eventStore.headPosition());
      }
    }
  }

  private async project(events: RecordedEvent[]): Promise<void> {
    const docs = new Map<string, SessionsDocument>();
    for (const event of events) {
      const userId = event.streamName.slice(SessionStreams.sessionsPrefix.length);
      let doc = docs.get(userId) ?? (await this.sessions.findOne({ _id: userId })) ?? { _id: userId, accountId: '', active: [], revision: -1 };
      if (event.revision <= doc.revision) continue; // replayed
      doc = { ...doc, active: applySessionEvent(doc.active, event as unknown as SessionEvent), revision: event.revision };
      if (event.type === 'RefreshTokenIssued') doc.accountId = (event.data as RefreshTokenIssued['data']).accountId;
      docs.set(userId, doc);
    }
    await writeGuarded(this.sessions, [...docs.values()].map(guardedReplace));
  }
}

function applySessionEvent(active: ActiveToken[], event: SessionEvent): ActiveToken[] {
  if (event.type === 'RefreshTokenIssued') {
    const { tokenId, digest, issuedAt, expiresAt } = event.data;
    return [...active, { tokenId, digest, issuedAt, expiresAt }];
  }
  const revoked = new Set((event as RefreshTokensRevoked).data.tokenIds);
  return active.filter((t) => !revoked.has(t.tokenId));
}
