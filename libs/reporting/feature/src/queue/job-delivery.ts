import type { JobConsumerOptions, JobDelivery, JobEnvelope, JobQueueOptions } from './job-queue';

/** What both adapters share: option defaults, validation, and what to do once a delivery ends. */

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS: readonly number[] = [1000, 5000, 30_000, 120_000];
export const DEFAULT_ACK_WAIT_MS = 15_000;
export const DEFAULT_MAX_RUN_MS = 300_000;
export const DEFAULT_DEDUPE_WINDOW_MS = 120_000;
export const DEFAULT_MAX_WAITING = 32;

export type ResolvedQueueOptions = Required<JobQueueOptions>;

const NAME = /^[A-Za-z0-9_-]+$/;
const SUBJECT_PREFIX = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

export function resolveQueueOptions(options: JobQueueOptions): ResolvedQueueOptions {
  const resolved: ResolvedQueueOptions = {
    name: options.name,
    subjectPrefix: options.subjectPrefix,
    maxAttempts: options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
    backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS,
    ackWaitMs: options.ackWaitMs ?? DEFAULT_ACK_WAIT_MS,
    maxRunMs: options.maxRunMs ?? DEFAULT_MAX_RUN_MS,
    dedupeWindowMs: options.dedupeWindowMs ?? DEFAULT_DEDUPE_WINDOW_MS,
  };
  if (!NAME.test(resolved.name)) throw new Error(`job queue name ${JSON.stringify(resolved.name)}: letters, digits, _ and - only`);
  if (!SUBJECT_PREFIX.test(resolved.subjectPrefix)) throw new Error(`job queue subject prefix ${JSON.stringify(resolved.subjectPrefix)}: dot-separated tokens`);
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) throw new Error('maxAttempts must be an integer >= 1');
  if (resolved.backoffMs.length === 0 || resolved.backoffMs.some((ms) => !(ms >= 0))) throw new Error('backoffMs must list at least one wait >= 0');
  if (!(resolved.ackWaitMs >= 1)) throw new Error('ackWaitMs must be >= 1');
  if (!(resolved.maxRunMs >= 0)) throw new Error('maxRunMs must be >= 0');
  if (!(resolved.dedupeWindowMs >= 1)) throw new Error('dedupeWindowMs must be >= 1');
  return resolved;
}

/** A job's type becomes one subject token. */
export function assertEnqueueable(job: JobEnvelope<unknown>): void {
  if (!NAME.test(job.type)) throw new Error(`job ${job.jobId}: type ${JSON.stringify(job.type)} must be letters, digits, _ and - only`);
  if (typeof job.jobId !== 'string' || job.jobId.length === 0) throw new Error('a job needs a non-empty jobId');
}

/** Wait before the delivery after failed attempt `attempt` (1..): backoffMs[attempt - 1], the last one repeating. */
export function backoffAfter(backoffMs: readonly number[], attempt: number): number {
  return backoffMs[Math.min(attempt, backoffMs.length) - 1];
}

/** What the adapter does with a delivery once it ended. */
export type DeliveryOutcome = { kind: 'ack' } | { kind: 'retry'; delayMs: number } | { kind: 'remove' };

export class LeaseExpiredError extends Error {
  constructor(attempts: number) {
    super(`the last of ${attempts} attempts did not finish within the ack wait (the process running it died or hung)`);
    this.name = 'LeaseExpiredError';
  }
}

/**
 * Runs one delivery. Adapters deliver a job up to maxAttempts + 1 times: a delivery past maxAttempts
 * means the last attempt's lease ran out without an answer (its process died), so the handler is
 * not called again; the job is exhausted as if that attempt had thrown.
 */
export async function runDelivery<P>(
  delivery: JobDelivery<P>,
  handler: (delivery: JobDelivery<P>) => Promise<void>,
  consumer: JobConsumerOptions<P>,
  options: ResolvedQueueOptions,
): Promise<DeliveryOutcome> {
  let failure: unknown;
  if (delivery.attempt > options.maxAttempts) {
    failure = new LeaseExpiredError(options.maxAttempts);
  } else {
    try {
      await handler(delivery);
      return { kind: 'ack' };
    } catch (error) {
      failure = error;
    }
    report(consumer, failure, delivery);
    if (delivery.attempt < options.maxAttempts) return { kind: 'retry', delayMs: backoffAfter(options.backoffMs, delivery.attempt) };
  }
  if (consumer.onExhausted) {
    try {
      await consumer.onExhausted(delivery, failure);
    } catch (error) {
      report(consumer, error, delivery);
    }
  }
  return { kind: 'remove' };
}

export function report<P>(consumer: JobConsumerOptions<P>, error: unknown, delivery?: JobDelivery<P>): void {
  try {
    consumer.onError?.(error, delivery);
  } catch {
    // A logger that throws must not stop the queue.
  }
}

export function resolveConcurrency<P>(consumer: JobConsumerOptions<P>): number {
  const concurrency = consumer.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be an integer >= 1');
  return concurrency;
}

/** The consumer's slots (see DeliverySlots), its options checked. */
export function consumerSlots<P>(consumer: JobConsumerOptions<P>, changed: () => void): DeliverySlots {
  const maxWaiting = consumer.maxWaiting ?? DEFAULT_MAX_WAITING;
  if (!Number.isInteger(maxWaiting) || maxWaiting < 0) throw new Error('maxWaiting must be an integer >= 0');
  return new DeliverySlots(resolveConcurrency(consumer), maxWaiting, changed);
}

/**
 * A consumer's slots: `concurrency` deliveries run at once; a delivery whose handler `wait`s gives
 * its slot up meanwhile (up to `maxWaiting` of them) and takes one again, first come first served,
 * before its handler goes on. `changed` is told when a slot came free (the adapter takes more jobs).
 */
export class DeliverySlots {
  private running = 0;
  private readonly resuming: (() => void)[] = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
    private readonly changed: () => void,
  ) {}

  /** How many new deliveries the adapter may take now, holding `held` (running and waiting). */
  free(held: number): number {
    return Math.max(0, Math.min(this.concurrency - this.running - this.resuming.length, this.concurrency + this.maxWaiting - held));
  }

  /** Slots for `count` new deliveries (the adapter asked `free` first); those it did not fill it gives back. */
  take(count = 1): void {
    this.running += count;
  }

  /** A delivery ended (or started waiting): its slot goes to the longest-waiting handler that resumes, else back to the adapter. */
  give(): void {
    const next = this.resuming.shift();
    if (next) next();
    else {
      this.running -= 1;
      this.changed();
    }
  }

  /** A waiting delivery takes a slot again (at once when one is free). */
  resume(): Promise<void> {
    if (this.running < this.concurrency && this.resuming.length === 0) {
      this.running += 1;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => this.resuming.push(resolve));
  }
}

/**
 * Tells the deliveries waiting for their account's turn that a job of the account left the queue
 * through this process (acked, given up, or put back for its backoff): each adapter calls
 * `changed` once the queue no longer holds the job as in flight, so the account's next job looks
 * again at once instead of at its next poll.
 */
export class AccountChanges {
  private readonly waiters = new Map<string, Set<() => void>>();

  changed(accountId: string): void {
    const waiting = this.waiters.get(accountId);
    if (!waiting) return;
    this.waiters.delete(accountId);
    for (const wake of waiting) wake();
  }

  /** The next change of the account's jobs, or `ms` passing, or `signal` aborted, whichever comes first (subscribed at once). */
  next(accountId: string): { within(ms: number, signal?: AbortSignal): Promise<void>; cancel(): void } {
    let wake!: () => void;
    const changed = new Promise<void>((resolve) => (wake = resolve));
    let waiting = this.waiters.get(accountId);
    if (!waiting) this.waiters.set(accountId, (waiting = new Set()));
    waiting.add(wake);
    const cancel = () => {
      const set = this.waiters.get(accountId);
      set?.delete(wake);
      if (set?.size === 0) this.waiters.delete(accountId);
    };
    return {
      within: async (ms, signal) => {
        let timer: NodeJS.Timeout | undefined;
        let onAbort: (() => void) | undefined;
        const aborted = new Promise<void>((resolve) => {
          onAbort = () => resolve();
          signal?.addEventListener('abort', onAbort, { once: true });
        });
        await Promise.race([changed, aborted, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort!);
        cancel();
      },
      cancel,
    };
  }
}

/** What a delivery needs from its adapter: the slots, and how to keep the delivery alive. */
export interface DeliveryWaitHooks {
  slots: DeliverySlots;
  /** Renews the delivery's lease (JetStream: in-progress; embedded: extends the lease column). */
  keepAlive(): void;
  /** How often `keepAlive` is called while the delivery runs or waits (a fraction of the ack wait). */
  keepAliveEveryMs: number;
  /** How long a running handler (not waiting) is kept alive; after that a hung handler's lease runs out. */
  maxRunMs: number;
  onError(error: unknown): void;
  /** JobDelivery.isFirstOfAccount, answered by the adapter. */
  isFirstOfAccount(): Promise<boolean>;
  /** JobDelivery.isNextOfAccountAfter, answered by the adapter. */
  isNextOfAccountAfter(earlier: JobDelivery<unknown>): Promise<boolean>;
  /** The adapter's signal of jobs leaving the queue, by account. */
  accountChanges: AccountChanges;
  /** Longest wait between two looks of `untilFirstOfAccount` without a signal (jobs removed by other processes). */
  accountPollMs: number;
}

/**
 * A delivery as adapters hand it to handlers. Its hooks are a private field, so the delivery
 * compares (and prints) as `{ job, attempt }`.
 */
export class QueueDelivery<P> implements JobDelivery<P> {
  readonly #hooks: DeliveryWaitHooks;
  #runningSince = Date.now();
  #waiting = 0;

  constructor(
    readonly job: JobEnvelope<P>,
    readonly attempt: number,
    hooks: DeliveryWaitHooks,
  ) {
    this.#hooks = hooks;
  }

  isFirstOfAccount(): Promise<boolean> {
    return this.#hooks.isFirstOfAccount();
  }

  isNextOfAccountAfter(earlier: JobDelivery<P>): Promise<boolean> {
    return this.#hooks.isNextOfAccountAfter(earlier);
  }

  async untilFirstOfAccount(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const hooks = this.#hooks;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (signal?.aborted) return false;
      // Subscribed before looking: a job that leaves while the look is under way still wakes it.
      const change = hooks.accountChanges.next(this.job.accountId);
      let first: boolean;
      try {
        first = await this.isFirstOfAccount();
      } catch (error) {
        change.cancel();
        throw error;
      }
      const left = deadline - Date.now();
      if (first || left <= 0 || signal?.aborted) {
        change.cancel();
        return first && !signal?.aborted;
      }
      await change.within(Math.min(left, hooks.accountPollMs), signal);
    }
  }

  async wait<T>(pending: Promise<T>): Promise<T> {
    const hooks = this.#hooks;
    hooks.slots.give();
    this.#waiting += 1;
    try {
      return await pending;
    } finally {
      // Kept alive until it runs again: taking a slot back may wait for another delivery to end.
      await hooks.slots.resume();
      this.#waiting -= 1;
      this.#runningSince = Date.now();
    }
  }

  /**
   * Keeps the delivery's lease alive from now until `stop()`: every `keepAliveEveryMs` while it
   * waits, and while its handler runs for up to `maxRunMs` (then a hung handler's lease runs out).
   */
  keepAlive(): () => void {
    const hooks = this.#hooks;
    this.#runningSince = Date.now();
    const timer = setInterval(() => {
      if (this.#waiting === 0 && Date.now() - this.#runningSince >= hooks.maxRunMs) return;
      try {
        hooks.keepAlive();
      } catch (error) {
        hooks.onError(error);
      }
    }, hooks.keepAliveEveryMs);
    // The handler's own work keeps the process alive, not its lease.
    timer.unref();
    return () => clearInterval(timer);
  }
}

/** Keep-alive period of a delivery: a third of the ack wait, so two signals may be lost. */
export function keepAliveEvery(options: ResolvedQueueOptions): number {
  return Math.max(1, Math.floor(options.ackWaitMs / 3));
}
