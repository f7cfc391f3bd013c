import type { JobConsumerOptions, JobDelivery, JobEnvelope, JobQueueOptions } from './job-queue';

/** What both adapters share: option defaults, validation, and what to do once a delivery ends. */

export const DEFAULT_MAX_ATTEMPTS = 5;
export const DEFAULT_BACKOFF_MS: readonly number[] = [1000, 5000, 30_000, 120_000];
export const DEFAULT_ACK_WAIT_MS = 60_000;
export const DEFAULT_DEDUPE_WINDOW_MS = 120_000;

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
    dedupeWindowMs: options.dedupeWindowMs ?? DEFAULT_DEDUPE_WINDOW_MS,
  };
  if (!NAME.test(resolved.name)) throw new Error(`job queue name ${JSON.stringify(resolved.name)}: letters, digits, _ and - only`);
  if (!SUBJECT_PREFIX.test(resolved.subjectPrefix)) throw new Error(`job queue subject prefix ${JSON.stringify(resolved.subjectPrefix)}: dot-separated tokens`);
  if (!Number.isInteger(resolved.maxAttempts) || resolved.maxAttempts < 1) throw new Error('maxAttempts must be an integer >= 1');
  if (resolved.backoffMs.length === 0 || resolved.backoffMs.some((ms) => !(ms >= 0))) throw new Error('backoffMs must list at least one wait >= 0');
  if (!(resolved.ackWaitMs >= 1)) throw new Error('ackWaitMs must be >= 1');
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
