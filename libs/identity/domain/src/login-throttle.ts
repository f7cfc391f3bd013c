/**
 * Login throttling. Failures inside a window count up; past a first threshold each further failure
 * is answered slowly, past a second one the counter is locked until the lock ends.
 *
 * - Per (username, source address) pair: the pair's own failures slow it and then lock it (its
 *   attempts are refused, 429). A correct password clears the pair's count.
 * - Per username, from any address (guessing one password from many addresses), and per source
 *   address, across usernames (password spraying): while either is locked, an address the user
 *   has logged in from in the last TRUSTED_PAIR_MS (a trusted pair) is not affected at all, and
 *   other addresses get one password check per `lockMs / lockAfter` of the lock (the rate that
 *   would not have locked it), their other attempts refused unchecked: others' failures never
 *   refuse a user at an address it logs in from, and guessing stays that slow.
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
export const USER_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 5, lockAfter: 10, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };
export const ADDRESS_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 20, lockAfter: 100, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };
export const OTP_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 3, lockAfter: 5, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };

export interface ThrottleState {
  failures: number;
  /** ms since the epoch. */
  firstFailureAt: number;
  lockedUntil: number;
  /** While locked: when the next attempt from an address that is not trusted may be checked (absent: now). */
  nextCheckAt?: number;
}

/** How long a successful login (a session issued) makes its (username, address) pair trusted. */
export const TRUSTED_PAIR_MS = 30 * 24 * 3600_000;

/** While a counter of `policy` is locked, attempts from addresses that are not trusted are checked at most this often. */
export function lockedCheckIntervalMs(policy: ThrottlePolicy): number {
  return policy.lockMs / policy.lockAfter;
}

/** Whether an attempt under a locked counter may be checked now (its next check is due). */
export function lockedCheckDue(state: ThrottleState, now: number): boolean {
  return (state.nextCheckAt ?? 0) <= now;
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
 * Whether a login attempt is checked, from what the gate read: a locked pair is refused; a trusted
 * pair is checked whatever the username and address counters say; otherwise the locked ones among
 * them (`locked`) each need a due check (see LoginThrottle.loginGate), or the attempt is refused.
 */
export function loginLocks(
  pair: ThrottleState | null | undefined,
  user: ThrottleState | null | undefined,
  address: ThrottleState | null | undefined,
  trusted: boolean,
  now: number,
): { pairLockedForMs: number; locked: ThrottleState[] } {
  const pairLockedForMs = lockRemainingMs(pair, now);
  if (pairLockedForMs > 0 || trusted) return { pairLockedForMs, locked: [] };
  return { pairLockedForMs, locked: [user, address].filter((state): state is ThrottleState => lockRemainingMs(state, now) > 0) };
}
