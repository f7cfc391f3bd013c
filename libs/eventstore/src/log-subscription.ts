import type { RecordedEvent, SubscribeToAllOptions, Subscription } from './event-store.port';

/**
 * What every adapter's subscription shares: the caught-up signal, stopping, delivering batches to
 * the handler, and reporting a failure once. An adapter supplies `follow()` (catch up, then go
 * live, calling `deliver` and `markCaughtUp`) and wakes its own waits through `wake()`.
 */
export abstract class LogSubscription implements Subscription {
  readonly caughtUp: Promise<void>;
  private resolveCaughtUp!: () => void;
  private rejectCaughtUp!: (error: Error) => void;
  private isCaughtUp = false;
  private delivering = false;
  private finished: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  protected stopped = false;

  constructor(
    protected readonly options: SubscribeToAllOptions,
    private readonly onFinished: (subscription: LogSubscription) => void,
  ) {
    this.caughtUp = new Promise<void>((resolve, reject) => {
      this.resolveCaughtUp = resolve;
      this.rejectCaughtUp = reject;
    });
    // Callers may never await caughtUp; its rejection must not become an unhandled one.
    this.caughtUp.catch(() => undefined);
  }

  start(): void {
    this.finished = this.run();
  }

  /**
   * Stops delivery. While a handler runs it returns at once, as the caller may be that handler
   * (waiting for itself would deadlock); the loop ends when the handler settles, and
   * `whenFinished()` (what close() waits for) resolves then. Knowing the caller exactly would need
   * AsyncLocalStorage, whose promise hooks slow every promise of the process.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    if (this.delivering) return;
    await this.finished;
  }

  /** Resolves when the loop has ended (the running handler included). */
  whenFinished(): Promise<void> {
    return this.finished;
  }

  /** Catches up, then follows the log until stopped; a throw stops the subscription with that error. */
  protected abstract follow(): Promise<void>;

  protected markCaughtUp(): void {
    if (this.isCaughtUp) return;
    this.isCaughtUp = true;
    this.resolveCaughtUp();
    this.options.onCaughtUp?.();
  }

  protected async deliver(batch: RecordedEvent[]): Promise<void> {
    this.delivering = true;
    try {
      await this.options.onEvents(batch);
    } finally {
      this.delivering = false;
    }
  }

  /** Waits until wake() is called (an append, a stop), or `ms` pass when given. */
  protected waitForWake(ms?: number): Promise<void> {
    // A stop() that came while the loop was busy found nothing to wake: do not sleep through it.
    if (this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(() => this.wake(), ms);
      this.wakeUp = () => {
        if (timer) clearTimeout(timer);
        resolve();
      };
    });
  }

  protected wake(): void {
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }

  private async run(): Promise<void> {
    try {
      await this.follow();
    } catch (error) {
      if (!this.stopped) {
        this.stopped = true;
        const failure = toError(error);
        if (!this.isCaughtUp) this.rejectCaughtUp(failure);
        this.options.onError?.(failure);
      }
    } finally {
      if (!this.isCaughtUp) this.rejectCaughtUp(new Error('Subscription stopped before it caught up'));
      this.onFinished(this);
    }
  }
}

export function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
