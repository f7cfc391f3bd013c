/**
 * Jobs of one account apply one at a time: the update worker holds its job's account while it
 * applies it. Adapters: in-process (standalone, or a single process) and a lease per account in a
 * JetStream key-value bucket (distributed: every replica), one contract suite for both.
 */
export interface AccountHold {
  /** Lets the next waiter of the account go (idempotent). */
  release(): Promise<void>;
}

export interface AccountExclusion {
  /**
   * Resolves once no other holder of `accountId` runs (for a shared adapter: in any process), holding
   * it until `release()`. Callers in one process are served in the order they called: the call takes
   * its place in line before it returns. Callers still waiting when `close()` is called reject with
   * an ExclusionClosedError.
   */
  acquire(accountId: string): Promise<AccountHold>;
  /** Stops the waiters (the holders keep running and release as usual). */
  close(): Promise<void>;
}

export class ExclusionClosedError extends Error {
  constructor() {
    super('the account exclusion is closed: the job waiting for its account is given back to the queue');
    this.name = 'ExclusionClosedError';
  }
}

/**
 * One line per account in this process: each caller waits for the one before it to release, so the
 * jobs of an account run one at a time in the order their deliveries called `acquire`, and other
 * accounts' lines are independent.
 */
export class InProcessAccountExclusion implements AccountExclusion {
  /** Per account, the release of the last caller in line (absent: nobody holds or waits). */
  private readonly tails = new Map<string, Promise<void>>();
  private closing = false;

  acquire(accountId: string): Promise<AccountHold> {
    if (this.closing) return Promise.reject(new ExclusionClosedError());
    const before = this.tails.get(accountId) ?? Promise.resolve();
    let done!: () => void;
    const released = new Promise<void>((resolve) => (done = resolve));
    this.tails.set(accountId, released);
    let holding = true;
    const release = async () => {
      if (!holding) return;
      holding = false;
      done();
      if (this.tails.get(accountId) === released) this.tails.delete(accountId);
    };
    return before.then(() => {
      if (this.closing) {
        void release();
        throw new ExclusionClosedError();
      }
      return { release };
    });
  }

  async close(): Promise<void> {
    this.closing = true;
  }
}
