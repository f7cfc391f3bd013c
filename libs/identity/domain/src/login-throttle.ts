/**
 * Login throttling, per username and per source address. Failures inside a window count up; past a
 * first threshold each further failure is answered slowly, past a second one attempts are refused
 * (429) until the lock ends. A success clears the username's count. The address limits are higher,
 * since many users may share an address: one user's failures never stop another user's login
 * unless the address itself has failed many times.
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

export const USERNAME_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 5, lockAfter: 10, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };
export const ADDRESS_POLICY: ThrottlePolicy = { windowMs: 15 * 60_000, slowAfter: 20, lockAfter: 100, lockMs: 15 * 60_000, baseDelayMs: 125, maxDelayMs: 1000 };

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
