import { BillingErrorCodes, ServiceError } from '@funnel/contracts';
import { ReadCollection, ReadStore } from '@funnel/readstore';

/** Domain checks (check and refresh) one account may make per minute. */
export const DOMAIN_CHECKS_PER_MINUTE = 30;

interface CheckWindowDocument {
  /** `<accountId>:<window start, Unix seconds>` */
  _id: string;
  [key: string]: unknown;
  accountId: string;
  windowStart: number;
  count: number;
}

/**
 * At most 30 domain checks per calendar minute per account, counted in the read store so every
 * replica shares the count: each check increments the minute's counter ($inc, atomic in MongoDB)
 * and is refused (429 RATE_LIMITED, Retry-After until the minute ends) when the count passes the limit.
 */
export class CheckRateLimit {
  private readonly windows: ReadCollection<CheckWindowDocument>;

  constructor(
    readStore: ReadStore,
    private readonly clock: () => number = Date.now,
    private readonly limit = DOMAIN_CHECKS_PER_MINUTE,
  ) {
    this.windows = readStore.collection<CheckWindowDocument>('billing_check_windows', { persistent: true });
  }

  async take(accountId: string): Promise<void> {
    const now = Math.floor(this.clock() / 1000);
    const windowStart = now - (now % 60);
    const _id = `${accountId}:${windowStart}`;
    await this.windows.bulkWrite([{ updateOne: { filter: { _id }, update: { $inc: { count: 1 }, $setOnInsert: { accountId, windowStart } }, upsert: true } }]);
    const window = await this.windows.findOne({ _id });
    const count = window?.count ?? 1;
    // The first check of a minute clears the account's earlier minutes.
    if (count === 1) await this.windows.deleteMany({ accountId, windowStart: { $lt: windowStart } });
    if (count > this.limit) {
      throw ServiceError.tooManyRequests(
        `at most ${this.limit} domain checks per minute; try again in ${windowStart + 60 - now} s`,
        windowStart + 60 - now,
        BillingErrorCodes.RATE_LIMITED,
      );
    }
  }
}
