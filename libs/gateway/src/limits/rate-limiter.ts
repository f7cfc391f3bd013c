/** What one request costs a credential, and what is left. */
export interface RateLimitDecision {
  allowed: boolean;
  /** Whole requests left right now. */
  remaining: number;
  /** Seconds until the credential's bucket is full again (RateLimit-Reset). */
  resetSeconds: number;
  /** When refused: seconds until one request is allowed again (Retry-After). */
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  /** Requests per second a credential may sustain. */
  perSecond: number;
  /** Requests a credential may make at once after being idle (the bucket's size). */
  burst: number;
  /** At most this many buckets are kept; past it, idle ones go first, then the oldest. */
  maxBuckets?: number;
  /** Milliseconds; tests inject one. */
  clock?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Token buckets by key, in this process's memory: each key holds up to `burst` tokens, refilled at
 * `perSecond`, and each request takes one. A request costs one Map lookup and a little arithmetic.
 * A bucket idle long enough to be full again is the same as no bucket, so such buckets are dropped
 * when new keys arrive (at most once a minute, or when the map is at `maxBuckets`), so memory stays
 * bounded by `maxBuckets` and by the keys active within the last refill period.
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly burst: number;
  private readonly buckets = new Map<string, Bucket>();
  private readonly maxBuckets: number;
  private readonly clock: () => number;
  private readonly refillMs: number;
  private lastSweep: number;

  constructor(options: RateLimiterOptions) {
    if (!(options.perSecond > 0) || !(options.burst >= 1)) throw new Error('a rate limit needs perSecond > 0 and burst >= 1');
    this.perSecond = options.perSecond;
    this.burst = options.burst;
    this.maxBuckets = options.maxBuckets ?? 100_000;
    this.clock = options.clock ?? Date.now;
    this.refillMs = (this.burst / this.perSecond) * 1000;
    this.lastSweep = this.clock();
  }

  /** Takes one token from `key`'s bucket when it has one. */
  take(key: string): RateLimitDecision {
    const now = this.clock();
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) * this.perSecond) / 1000);
      bucket.updatedAt = now;
    } else {
      this.makeRoom(now);
      bucket = { tokens: this.burst, updatedAt: now };
      this.buckets.set(key, bucket);
    }
    const allowed = bucket.tokens >= 1;
    if (allowed) bucket.tokens -= 1;
    return {
      allowed,
      remaining: Math.floor(bucket.tokens),
      resetSeconds: Math.ceil((this.burst - bucket.tokens) / this.perSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)),
    };
  }

  /** How many keys have a bucket (for tests and metrics). */
  get size(): number {
    return this.buckets.size;
  }

  private makeRoom(now: number): void {
    if (this.buckets.size < this.maxBuckets && now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) if (now - bucket.updatedAt >= this.refillMs) this.buckets.delete(key);
    // Still full of active keys: the oldest tenth start afresh, so the next new keys need no sweep.
    if (this.buckets.size < this.maxBuckets) return;
    const keep = Math.floor(this.maxBuckets * 0.9);
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(key);
    }
  }
}
