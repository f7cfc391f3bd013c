import { ReadStore } from '@funnel/readstore';
import {
  ADDRESS_POLICY,
  OTP_POLICY,
  PAIR_POLICY,
  TRUSTED_PAIR_MS,
  ThrottlePolicy,
  ThrottleState,
  USER_POLICY,
  afterFailure,
  emailDigest,
  failureCountsTowardsFilter,
  failureDelayMs,
  lockRemainingMs,
  lockUntil,
  lockedCheckDue,
  lockedCheckIntervalMs,
  loginLocks,
} from '@funnel/identity-domain';

interface ThrottleDocument extends ThrottleState {
  _id: string;
  /** Trusted pairs only: when a session was last issued to the pair. */
  trustedAt?: number;
  [key: string]: unknown;
}

/** What one more failure did to a counter: how long to hold back the answer, and the lock it started or extends (ms left; 0: none). */
export interface CountedFailure {
  delayMs: number;
  lockedForMs: number;
  failures: number;
}

/** The login gate's view before a password is checked. */
export interface LoginGate {
  /** Refuse without checking the password for this long (0: check it). */
  refusedForMs: number;
  /** A lock this attempt was checked under (ms left; 0: none): a wrong password is then answered with 429. */
  lockedForMs: number;
  /** The user has logged in from this address lately: the username and address locks do not apply. */
  trusted: boolean;
}

/** Counters that have not failed for this long are swept away (the longest window and lock). */
const STALE_AFTER_MS = Math.max(
  PAIR_POLICY.windowMs + PAIR_POLICY.lockMs,
  USER_POLICY.windowMs + USER_POLICY.lockMs,
  ADDRESS_POLICY.windowMs + ADDRESS_POLICY.lockMs,
  OTP_POLICY.windowMs + OTP_POLICY.lockMs,
);
/** Sweep once per this many failures counted by this process. */
const SWEEP_EVERY = 1000;

/**
 * Failure counters of logins (per username and address pair, per username, per address), the
 * trusted pairs, and counters of one-time codes (per user), in the read store: shared by every identity instance; not events, since they are
 * operational state, not facts of the domain.
 */
export class LoginThrottle {
  private readonly counters;
  private counted = 0;

  constructor(
    readStore: ReadStore,
    private readonly clock: () => number,
  ) {
    this.counters = readStore.collection<ThrottleDocument>('identity_login_throttle', { persistent: true });
  }

  /**
   * Whether a login for this username from this address may be checked (see loginLocks): a due
   * check under a locked username or address counter is taken here, atomically, so parallel
   * attempts cannot share it.
   */
  async loginGate(username: string, address: string | undefined): Promise<LoginGate> {
    const now = this.clock();
    const [pair, user, source, trust] = await Promise.all([
      this.counters.findOne({ _id: pairKey(username, address) }),
      this.counters.findOne({ _id: userKey(username) }),
      this.counters.findOne({ _id: addressKey(address) }),
      this.counters.findOne({ _id: trustedKey(username, address) }),
    ]);
    const trusted = !!trust?.trustedAt && trust.trustedAt > now - TRUSTED_PAIR_MS;
    const { pairLockedForMs, locked } = loginLocks(pair, user, source, trusted, now);
    if (pairLockedForMs > 0) return { refusedForMs: pairLockedForMs, lockedForMs: pairLockedForMs, trusted };
    const lockedForMs = Math.max(0, ...locked.map((state) => lockRemainingMs(state, now)));
    for (const state of [user, source]) {
      if (!state || !locked.includes(state)) continue;
      const interval = lockedCheckIntervalMs(state === user ? USER_POLICY : ADDRESS_POLICY);
      const due = lockedCheckDue(state, now);
      const taken =
        due &&
        (
          await this.counters.bulkWrite([
            {
              updateOne: {
                filter: { _id: state._id, $or: [{ nextCheckAt: { $exists: false } }, { nextCheckAt: { $lte: now } }] },
                update: { $set: { nextCheckAt: now + interval } },
              },
            },
          ])
        ).matchedCount === 1;
      if (!taken) return { refusedForMs: lockedForMs, lockedForMs, trusted };
    }
    return { refusedForMs: 0, lockedForMs, trusted };
  }

  /** Records a failed login for the pair, the username and the address; the pair's count, with the longest delay of the three. */
  async loginFailed(username: string, address: string | undefined): Promise<CountedFailure> {
    const [pair, user, source] = await Promise.all([
      this.count(pairKey(username, address), PAIR_POLICY),
      this.count(userKey(username), USER_POLICY),
      this.count(addressKey(address), ADDRESS_POLICY),
    ]);
    return {
      ...pair,
      delayMs: Math.max(pair.delayMs, user.delayMs, source.delayMs),
      lockedForMs: Math.max(pair.lockedForMs, user.lockedForMs, source.lockedForMs),
    };
  }

  /** A right password clears its pair's failures (the username and the address keep their counts until their windows end). */
  async loginSucceeded(username: string, address: string | undefined): Promise<void> {
    await this.counters.deleteMany({ _id: pairKey(username, address) });
  }

  /** A session was issued to this username at this address (after the second factor, if any): the pair is trusted for TRUSTED_PAIR_MS. */
  async trust(username: string, address: string | undefined): Promise<void> {
    const id = trustedKey(username, address);
    await this.counters.bulkWrite([
      { replaceOne: { filter: { _id: id }, replacement: { _id: id, failures: 0, firstFailureAt: 0, lockedUntil: 0, trustedAt: this.clock() }, upsert: true } },
    ]);
  }

  /** Milliseconds until this user's one-time codes are checked again (0: now). */
  async otpLockedForMs(userId: string): Promise<number> {
    return lockRemainingMs(await this.counters.findOne({ _id: otpKey(userId) }), this.clock());
  }

  async otpFailed(userId: string): Promise<CountedFailure> {
    return this.count(otpKey(userId), OTP_POLICY);
  }

  /** Only a right code clears the count of wrong codes (a right password does not). */
  async otpSucceeded(userId: string): Promise<void> {
    await this.counters.deleteMany({ _id: otpKey(userId) });
  }

  /**
   * Adds a failure with an atomic increment, so parallel attempts each count (a read-then-write
   * would let a burst of guesses pass as one). A counter outside its window starts again at 1.
   */
  private async count(id: string, policy: ThrottlePolicy): Promise<CountedFailure> {
    const now = this.clock();
    if (++this.counted % SWEEP_EVERY === 0) await this.sweep(now);
    const counted = await this.counters.bulkWrite([
      { updateOne: { filter: { _id: id, ...failureCountsTowardsFilter(now, policy) }, update: { $inc: { failures: 1 } } } },
    ]);
    if (counted.matchedCount === 0) {
      const fresh = afterFailure(null, now, policy);
      await this.counters.bulkWrite([{ replaceOne: { filter: { _id: id }, replacement: { _id: id, ...fresh }, upsert: true } }]);
      return { delayMs: failureDelayMs(fresh, policy), lockedForMs: lockRemainingMs(fresh, now), failures: fresh.failures };
    }
    const state = (await this.counters.findOne({ _id: id }))!;
    const lockedUntil = state.lockedUntil || lockUntil(state.failures, now, policy);
    if (lockedUntil !== state.lockedUntil) {
      await this.counters.bulkWrite([{ updateOne: { filter: { _id: id, lockedUntil: 0 }, update: { $set: { lockedUntil } } } }]);
    }
    return { delayMs: failureDelayMs(state, policy), lockedForMs: lockRemainingMs({ ...state, lockedUntil }, now), failures: state.failures };
  }

  /** Forgets counters that no longer count nor lock anything, and pairs no longer trusted, so spraying many usernames does not grow the store forever. */
  private async sweep(now: number): Promise<void> {
    await this.counters.deleteMany({ trustedAt: { $exists: false }, firstFailureAt: { $lt: now - STALE_AFTER_MS }, lockedUntil: { $lt: now } });
    await this.counters.deleteMany({ trustedAt: { $lt: now - TRUSTED_PAIR_MS } });
  }
}

/** Usernames only as digests; an unknown address (a caller that sent none) is one address of its own. */
const pairKey = (username: string, address: string | undefined) => `pair:${emailDigest(username)}:${address ?? 'unknown'}`;
const addressKey = (address: string | undefined) => `address:${address ?? 'unknown'}`;
const userKey = (username: string) => `user:${emailDigest(username)}`;
const trustedKey = (username: string, address: string | undefined) => `trusted:${emailDigest(username)}:${address ?? 'unknown'}`;
const otpKey = (userId: string) => `otp:${userId}`;
