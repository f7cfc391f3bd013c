import { Logger, LoggerService } from '@nestjs/common';
import { ServiceError } from '@funnel/contracts';

export interface CredentialFailurePolicy {
  /** Failed attempts from one client address that block it (CREDENTIAL_FAILURE_LIMIT). */
  limit: number;
  /** Failures count within this window from the first one; a block lasts this long (CREDENTIAL_FAILURE_WINDOW_SECONDS). */
  windowMs: number;
  /** Failed API keys claiming one key prefix (their first KEY_PREFIX_LENGTH characters), from any address; `limit` by default. */
  prefixLimit?: number;
  /** Failed attempts from all addresses together (CREDENTIAL_FAILURE_GLOBAL_LIMIT); 20 × `limit` by default. */
  globalLimit?: number;
}

export const DEFAULT_CREDENTIAL_FAILURE_POLICY: CredentialFailurePolicy = { limit: 50, windowMs: 5 * 60_000 };

/** The characters of an API key that name it in lists (`prefix`): failed keys also count per claimed prefix. */
export const KEY_PREFIX_LENGTH = 6;

/** What a credential attempt is counted under. */
export interface CredentialAttempt {
  address: string;
  /** The first KEY_PREFIX_LENGTH characters of an API key; none for tokens. */
  keyPrefix?: string;
}

interface BucketState {
  failures: number;
  since: number;
  /** 0 while not blocked. */
  blockedUntil: number;
  /** While blocked: when the next unknown credential may be checked, and how often. */
  nextCheckAt: number;
  checkEveryMs: number;
}

/** Buckets remembered at most per kind (per gateway replica); past it, the one whose count began longest ago is forgotten. */
const MAX_BUCKETS = 100_000;

type BucketKind = 'address' | 'prefix' | 'global';

/** Counts of one kind of bucket, in insertion order of their windows (the first is the oldest). */
class Buckets {
  private readonly states = new Map<string, BucketState>();

  constructor(
    readonly kind: BucketKind,
    readonly limit: number,
  ) {}

  get(key: string): BucketState | undefined {
    return this.states.get(key);
  }

  /** The bucket's state with one more failure counted at `now`; true as second value when this failure blocked it. */
  fail(key: string, now: number, windowMs: number): [BucketState, boolean] {
    let state = this.states.get(key);
    if (state === undefined || ended(state, now, windowMs)) {
      this.states.delete(key);
      if (this.states.size >= MAX_BUCKETS) this.states.delete(this.states.keys().next().value!);
      state = { failures: 0, since: now, blockedUntil: 0, nextCheckAt: 0, checkEveryMs: windowMs / this.limit };
      this.states.set(key, state);
    }
    state.failures++;
    if (state.blockedUntil === 0 && state.failures >= this.limit) {
      state.blockedUntil = now + windowMs;
      state.nextCheckAt = now + state.checkEveryMs;
      return [state, true];
    }
    return [state, false];
  }
}

/** Whether a state no longer counts: its window passed without a block, or its block ended. */
function ended(state: BucketState, now: number, windowMs: number): boolean {
  return state.blockedUntil === 0 ? now - state.since >= windowMs : state.blockedUntil <= now;
}

const blockedNow = (state: BucketState | undefined, now: number): state is BucketState => state !== undefined && state.blockedUntil > now;

/**
 * Failed credential attempts (an unknown, disabled or deleted API key; a forged, tampered or foreign
 * token), in this gateway replica's memory, counted three ways: per client address, per API-key
 * prefix the attempt claims (guessing one key from many addresses), and all together (guessing
 * spread over many addresses and prefixes). `limit` failures within `windowMs` of the first block a
 * bucket for `windowMs`. A block never refuses a valid credential:
 *
 * - a credential that cannot be guessed is always checked: an access token (verified locally), an
 *   API key of the issued shape (ISSUED_API_KEY_PATTERN, 192 random bits); so is an API key this
 *   gateway has seen valid in the last day;
 * - another API key (one of an operator's choosing, which may be weak) is checked while none of its buckets is blocked;
 *   while one is, at most one such key per `windowMs / limit` of each blocked bucket is checked (the
 *   rate that would not have blocked it), and the others are answered 429 unchecked, so guessing
 *   stays that slow;
 * - a failed attempt counted in a blocked bucket is answered 429 `AUTH.TOO_MANY_ATTEMPTS` with
 *   Retry-After instead of 401.
 *
 * Expired tokens are not failures (clients renew them), and neither are requests without any credential.
 */
export class CredentialFailures {
  private readonly addresses: Buckets;
  private readonly prefixes: Buckets;
  private readonly all: Buckets;
  private readonly logger: LoggerService;

  constructor(
    private readonly policy: CredentialFailurePolicy = DEFAULT_CREDENTIAL_FAILURE_POLICY,
    private readonly now: () => number = Date.now,
    logger?: LoggerService,
  ) {
    this.addresses = new Buckets('address', policy.limit);
    this.prefixes = new Buckets('prefix', policy.prefixLimit ?? policy.limit);
    this.all = new Buckets('global', policy.globalLimit ?? 20 * policy.limit);
    this.logger = logger ?? new Logger('CredentialFailures');
  }

  /**
   * Before an API key this gateway has not seen valid is checked: throws the 429 when one of the
   * attempt's buckets is blocked and its next check is not due yet (a due check is taken).
   */
  admitUnknownKey(attempt: CredentialAttempt): void {
    const now = this.now();
    const blocked = this.bucketsOf(attempt)
      .map(([buckets, key]) => buckets.get(key))
      .filter((state): state is BucketState => blockedNow(state, now));
    if (blocked.length === 0) return;
    const due = Math.max(...blocked.map((state) => state.nextCheckAt));
    if (due > now) throw this.refusal(Math.max(...blocked.map((state) => state.blockedUntil)) - now);
    for (const state of blocked) state.nextCheckAt = now + state.checkEveryMs;
  }

  /** Counts a failed attempt; returns the 429 to answer instead of the 401 when one of its buckets is (now) blocked. */
  failed(attempt: CredentialAttempt): ServiceError | undefined {
    const now = this.now();
    let blockedUntil = 0;
    for (const [buckets, key] of this.bucketsOf(attempt)) {
      const [state, justBlocked] = buckets.fail(key, now, this.policy.windowMs);
      if (justBlocked) {
        this.logger.warn(
          {
            msg: `credential attempts blocked for ${buckets.kind === 'global' ? 'all addresses' : `a ${buckets.kind}`}`,
            event: 'auth.failure',
            bucket: buckets.kind,
            ...(buckets.kind === 'address' ? { address: key } : {}),
            failures: state.failures,
            blockedForMs: this.policy.windowMs,
          },
          'CredentialFailures',
        );
      }
      if (blockedNow(state, now)) blockedUntil = Math.max(blockedUntil, state.blockedUntil);
    }
    return blockedUntil > 0 ? this.refusal(blockedUntil - now) : undefined;
  }

  private bucketsOf(attempt: CredentialAttempt): [Buckets, string][] {
    const out: [Buckets, string][] = [
      [this.addresses, attempt.address],
      [this.all, ''],
    ];
    if (attempt.keyPrefix !== undefined) out.push([this.prefixes, attempt.keyPrefix]);
    return out;
  }

  private refusal(leftMs: number): ServiceError {
    return ServiceError.tooManyRequests('too many failed credential attempts; try again later', Math.ceil(leftMs / 1000));
  }
}
