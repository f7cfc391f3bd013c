/** When group commit writes a batch, and how much it lets wait. */
export interface GroupCommitOptions {
  /** A batch is written once it holds this many items (default 256)... */
  maxItems?: number;
  /** ...or this long after its first item (default 2 ms; 0: once the current event-loop turn is over). */
  maxWaitMs?: number;
  /** Batches written at once (default 1); a batch that waits for a slot takes later items up to maxItems. */
  maxConcurrentWrites?: number;
  /** Items waiting to be written at most (default 50,000): more are refused with GroupCommitOverloadedError. */
  maxQueued?: number;
}

export const GROUP_COMMIT_DEFAULTS: Required<GroupCommitOptions> = { maxItems: 256, maxWaitMs: 2, maxConcurrentWrites: 1, maxQueued: 50_000 };

/** More items wait than the writer can take: the caller should shed load rather than queue without bound. */
export class GroupCommitOverloadedError extends Error {
  constructor(queued: number) {
    super(`${queued} items already wait to be written: the store does not keep up`);
  }
}

export class GroupCommitClosedError extends Error {
  constructor() {
    super('the group commit is closed');
  }
}

interface Batch<T> {
  items: T[];
  /** Settles as the batch's write does: what every `add` of the batch answers (no promise made per add). */
  written: Promise<void>;
  settle: (error?: { error: unknown }) => void;
}

function newBatch<T>(): Batch<T> {
  let settle!: Batch<T>['settle'];
  const written = new Promise<void>((resolve, reject) => {
    settle = (error) => (error ? reject(error.error) : resolve());
  });
  return { items: [], written, settle };
}

/**
 * Group commit: the items of concurrent `add` calls share one `write`. A batch is sealed when it
 * holds `maxItems` items or `maxWaitMs` after its first item; a sealed batch waiting for a write slot
 * keeps taking items (up to `maxItems`), so batches grow with the load and shrink to one caller's
 * items when idle. Each `add` resolves when the write holding its items succeeded, and rejects with
 * that write's error.
 */
export class GroupCommit<T> {
  private readonly options: Required<GroupCommitOptions>;
  private open: Batch<T> | undefined;
  private readonly sealed: Batch<T>[] = [];
  private timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  private writing = 0;
  private queued = 0;
  private closed = false;
  private idle: (() => void) | undefined;
  /** Writes done so far (for tests and metrics). */
  writes = 0;

  constructor(
    private readonly write: (items: T[]) => Promise<void> | void,
    options: GroupCommitOptions = {},
  ) {
    this.options = { ...GROUP_COMMIT_DEFAULTS, ...withoutUndefined(options) };
  }

  add(items: readonly T[]): Promise<void> {
    if (this.closed) return Promise.reject(new GroupCommitClosedError());
    if (items.length === 0) return Promise.resolve();
    if (this.queued + items.length > this.options.maxQueued) return Promise.reject(new GroupCommitOverloadedError(this.queued));
    const batch = this.joinable() ?? (this.open = newBatch());
    for (const item of items) batch.items.push(item);
    this.queued += items.length;
    if (batch === this.open) {
      if (batch.items.length >= this.options.maxItems) this.seal();
      else if (this.timer === undefined) this.timer = this.options.maxWaitMs > 0 ? setTimeout(this.seal, this.options.maxWaitMs) : setImmediate(this.seal);
    }
    return batch.written;
  }

  /** Items waiting or being written. */
  get pending(): number {
    return this.queued;
  }

  /** Writes everything waiting, then refuses new items. */
  async close(): Promise<void> {
    this.closed = true;
    this.seal();
    if (this.writing > 0 || this.sealed.length > 0) await new Promise<void>((resolve) => (this.idle = resolve));
  }

  /** The batch new items join: the last sealed one still waiting for a slot, while it has room; else the open one. */
  private joinable(): Batch<T> | undefined {
    const waiting = this.sealed[this.sealed.length - 1];
    if (waiting && waiting.items.length < this.options.maxItems) return waiting;
    return this.open;
  }

  private readonly seal = (): void => {
    if (this.timer !== undefined) {
      clearTimeout(this.timer as NodeJS.Timeout);
      clearImmediate(this.timer as NodeJS.Immediate);
      this.timer = undefined;
    }
    if (this.open) this.sealed.push(this.open);
    this.open = undefined;
    this.pump();
  };

  private pump(): void {
    while (this.writing < this.options.maxConcurrentWrites && this.sealed.length > 0) {
      const batch = this.sealed.shift()!;
      this.writing++;
      this.writes++;
      const settle = (error?: { error: unknown }) => {
        // Room is made before the callers resume, so a caller that records again finds it.
        this.writing--;
        this.queued -= batch.items.length;
        batch.settle(error);
        this.pump();
        if (this.writing === 0 && this.sealed.length === 0) this.idle?.();
      };
      Promise.resolve()
        .then(() => this.write(batch.items))
        .then(
          () => settle(),
          (error: unknown) => settle({ error }),
        );
    }
  }
}

function withoutUndefined<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}
