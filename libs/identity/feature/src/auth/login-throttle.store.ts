import { ReadStore } from '@funnel/readstore';
import {
  ADDRESS_POLICY,
  ThrottlePolicy,
  ThrottleState,
  USERNAME_POLICY,
  afterFailure,
  emailDigest,
  failureCountsTowardsFilter,
  failureDelayMs,
  lockRemainingMs,
  lockUntil,
} from '@funnel/identity-domain';

interface ThrottleDocument extends ThrottleState {
  _id: string;
  [key: string]: unknown;
}

/**
 * Failed-login counters per username and per source address, in the read store (shared by every
 * identity instance; not events: they are operational state, not facts of the domain).
 */
export class LoginThrottle {
  private readonly counters;

  constructor(
    readStore: ReadStore,
    private readonly clock: () => number,
  ) {
    this.counters = readStore.collection<ThrottleDocument>('identity_login_throttle');
  }

  /** Milliseconds until attempts for this username or address are allowed again (0: allowed now). */
  async lockedForMs(username: string, address: string | undefined): Promise<number> {
    const now = this.clock();
    const [user, source] = await Promise.all([
      this.counters.findOne({ _id: userKey(username) }),
      address ? this.counters.findOne({ _id: addressKey(address) }) : null,
    ]);
    return Math.max(lockRemainingMs(user, now), lockRemainingMs(source, now));
  }

  /** Records a failure for both; answers how long to hold back the failed answer. */
  async failed(username: string, address: string | undefined): Promise<number> {
    const delays = await Promise.all([this.count(userKey(username), USERNAME_POLICY), address ? this.count(addressKey(address), ADDRESS_POLICY) : 0]);
    return Math.max(...delays);
  }

  /** A success clears the username's failures (the address keeps its own count until its window ends). */
  async succeeded(username: string): Promise<void> {
    await this.counters.deleteMany({ _id: userKey(username) });
  }

  /**
   * Adds a failure with an atomic increment, so parallel attempts each count (a read-then-write
   * would let a burst of guesses pass as one). A counter outside its window starts again at 1.
   */
  private async count(id: string, policy: ThrottlePolicy): Promise<number> {
    const now = this.clock();
    const counted = await this.counters.bulkWrite([
      { updateOne: { filter: { _id: id, ...failureCountsTowardsFilter(now, policy) }, update: { $inc: { failures: 1 } } } },
    ]);
    if (counted.matchedCount === 0) {
      const fresh = afterFailure(null, now, policy);
      await this.counters.bulkWrite([{ replaceOne: { filter: { _id: id }, replacement: { _id: id, ...fresh }, upsert: true } }]);
      return failureDelayMs(fresh, policy);
    }
    const state = (await this.counters.findOne({ _id: id }))!;
    const lockedUntil = state.lockedUntil || lockUntil(state.failures, now, policy);
    if (lockedUntil !== state.lockedUntil) {
      await this.counters.bulkWrite([{ updateOne: { filter: { _id: id, lockedUntil: 0 }, update: { $set: { lockedUntil } } } }]);
    }
    return failureDelayMs(state, policy);
  }
}

const userKey = (username: string) => `user:${emailDigest(username)}`;
const addressKey = (address: string) => `address:${address}`;
