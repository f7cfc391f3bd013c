/**
 * Login throttling. Failures inside a window count up; past a first threshold each further failure
 * is answered slowly, past a second one attempts are refused (429) until the lock ends.
 *
 * - Per (username, source address) pair: that pair is slowed and then locked, so nobody can lock a
 *   user out from elsewhere; the same user from another address is not affected. A correct password
 *   clears the pair's count.
 * - Per source address, across usernames (password spraying): higher limits, since many users may
 *   share an address. While an address is locked, only pairs without failures are still checked, so
 *   each username gets at most one more guess from it and a user whose own pair is clean still logs
 *   in with the right password.
 * - Per user, wrong one-time codes (TOTP), across MFA tokens and addresses: never cleared by a
 *   correct password, only by a correct code or the end of the window.
 */
export interface ThrottlePolicy {
  /** Failures count within this window from the first one. */
  windowMs: number;
  /** From this many failures on, each failed answer is delayed. */
  slowAfter: number;
  /** At this many failures, attempts are refused for lockMs. */
  lockAfter: number;
  lockMs: number;
  /** The first delay; doubled for each further failure, up to maxDelayMs (kept well under the RPC timeout). */
  baseDelayMs: number;
  maxDelayMs: number;
}

export const PAIR_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 5, lockAfter: 10, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };
export const ADDRESS_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 20, lockAfter: 100, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };
export const OTP_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 3, lockAfter: 5, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };

export interface ThrottleState {
  failures: number;
  /** ms since the epoch. */
  firstFailureAt: number;
  lockedUntil: number;
}

/** Milliseconds left of a lock, or 0 when attempts are allowed. */
export function lockRemainingMs(state: ThrottleState | null | undefined, now: number): number {
  return state && state.lockedUntil > now ? state.lockedUntil - now : 0;
}

/** Whether a failure at `now` adds to `state`: inside its window, and not after a lock that has ended. */
export function failureCountsTowards(state: ThrottleState | null | undefined, now: number, policy: ThrottlePolicy): state is ThrottleState {
  return !!state && state.firstFailureAt >= now - policy.windowMs && (state.lockedUntil === 0 || state.lockedUntil > now);
}

/** The same condition as a MongoDB filter, so a store can count atomically (parallel attempts each count). */
export function failureCountsTowardsFilter(now: number, policy: ThrottlePolicy): Record<string, unknown> {
  return { firstFailureAt: { $gte: now - policy.windowMs }, $or: [{ lockedUntil: 0 }, { lockedUntil: { $gt: now } }] };
}

/** When a state with this many failures is locked (0: not locked). */
export function lockUntil(failures: number, now: number, policy: ThrottlePolicy): number {
  return failures >= policy.lockAfter ? now + policy.lockMs : 0;
}

/** The state after one more failure at `now`. */
export function afterFailure(state: ThrottleState | null | undefined, now: number, policy: ThrottlePolicy): ThrottleState {
  if (!failureCountsTowards(state, now, policy)) return { failures: 1, firstFailureAt: now, lockedUntil: lockUntil(1, now, policy) };
  const failures = state.failures + 1;
  return { failures, firstFailureAt: state.firstFailureAt, lockedUntil: state.lockedUntil || lockUntil(failures, now, policy) };
}

/** How long to hold back the answer to the failure that produced `state`. */
export function failureDelayMs(state: ThrottleState, policy: ThrottlePolicy): number {
  if (state.failures < policy.slowAfter) return 0;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (state.failures - policy.slowAfter));
}

/**
 * How long a login attempt is refused before its password is checked (0: check it). A locked pair
 * is refused; a locked address refuses only pairs that have failed within their window, so a
 * first attempt for a username is still checked and a right password still logs in.
 */
export function loginRefusalMs(pair: ThrottleState | null | undefined, address: ThrottleState | null | undefined, now: number): number {
  const pairLock = lockRemainingMs(pair, now);
  if (pairLock > 0) return pairLock;
  return failureCountsTowards(pair, now, PAIR_POLICY) ? lockRemainingMs(address, now) : 0;
}
