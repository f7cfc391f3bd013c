import { FastifyReply } from 'fastify';
import { ErrorCodes, Principal, ServiceError } from '@funnel/contracts';
import { RateLimiter } from './rate-limiter';

export interface RateLimitOptions {
  /** Requests per second one credential may sustain (RATE_LIMIT_PER_SECOND, default 100). */
  perSecond: number;
  /** Requests one credential may make at once (RATE_LIMIT_BURST, default 200). */
  burst: number;
}

export const DEFAULT_RATE_LIMIT: RateLimitOptions = { perSecond: 100, burst: 200 };

/**
 * The per-credential rate limit of authenticated requests: one token bucket per API key, or per
 * user for access tokens, in this gateway replica's memory (N replicas admit up to N times the
 * rate). Every authenticated answer carries RateLimit-Limit, RateLimit-Remaining and
 * RateLimit-Reset; a request over the limit is a 429 REQUEST.RATE_LIMITED with Retry-After.
 */
export class CredentialRateLimit {
  private readonly limiter: RateLimiter;
  private readonly limitHeader: string;

  constructor(options: RateLimitOptions = DEFAULT_RATE_LIMIT, clock?: () => number) {
    this.limiter = new RateLimiter({ ...options, clock });
    this.limitHeader = String(options.burst);
  }

  /** Counts the request against its credential and sets the headers; throws the 429 when over the limit. */
  enforce(principal: Principal, reply: FastifyReply): void {
    const decision = this.limiter.take(principal.keyId !== undefined ? `key:${principal.keyId}` : `user:${principal.userId}`);
    reply.header('ratelimit-limit', this.limitHeader);
    reply.header('ratelimit-remaining', String(decision.remaining));
    reply.header('ratelimit-reset', String(decision.resetSeconds));
    if (!decision.allowed) {
      throw ServiceError.tooManyRequests(
        `rate limit exceeded: at most ${this.limiter.perSecond} requests per second per credential, bursts of ${this.limiter.burst}`,
        decision.retryAfterSeconds,
        ErrorCodes.RATE_LIMITED,
      );
    }
  }
}
