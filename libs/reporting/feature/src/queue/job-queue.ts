/**
 * Durable jobs (reporting updates, postback deliveries): one port, two adapters with one contract
 * suite: JetStream (distributed mode: a work-queue stream, durable pull consumer, explicit ack,
 * max_deliver with backoff, Nats-Msg-Id = jobId) and an embedded queue in the SQLite file
 * (standalone mode).
 */
export interface JobEnvelope<P = unknown> {
  /** Unique id; enqueueing an id that is already queued (or was, within the dedupe window) queues nothing. */
  jobId: string;
  /**
   * Routing type, e.g. `conversions`, `cost`, `customevents`, `reset`, `postback` (subject
   * `<prefix>.<type>`): letters, digits, `_` and `-` only.
   */
  type: string;
  accountId: string;
  /** Stored as JSON: plain data only (what JSON.parse(JSON.stringify(payload)) keeps is what the handler gets). */
  payload: P;
  /** ISO 8601. */
  queuedAt: string;
}

export interface JobDelivery<P = unknown> {
  job: JobEnvelope<P>;
  /** 1 on the first delivery; grows on every redelivery (handler threw, timed out, or the process died). */
  attempt: number;
  /**
   * Waits for `pending`, something outside the queue the handler needs first (e.g. its account's
   * turn), and resolves or rejects as it does. Meanwhile the delivery is kept alive (JetStream: the
   * message's in-progress signal; embedded: its lease extended), so it is neither redelivered nor
   * counted as an attempt, and it does not take one of the consumer's `concurrency` slots: the
   * consumer takes other jobs meanwhile, up to `maxWaiting` waiting deliveries.
   */
  wait<T>(pending: Promise<T>): Promise<T>;
  /**
   * Whether no job of this job's account enqueued before it is still on the queue (waiting, in
   * flight, or in its backoff): the account's earlier jobs are all done or given up.
   */
  isFirstOfAccount(): Promise<boolean>;
  /**
   * Whether no job of this job's account enqueued after `earlier` and before this job is still on
   * the queue: with `earlier` first of the account (or itself next after a first one, and so on) and
   * not acknowledged yet, this job comes right after it in the account's order. `earlier` is a
   * delivery of the same queue instance and account, enqueued before this job; false for any other.
   */
  isNextOfAccountAfter(earlier: JobDelivery<P>): Promise<boolean>;
  /**
   * Resolves true once `isFirstOfAccount()` holds, false when it still does not after `timeoutMs`.
   * It looks again as soon as a job of the account leaves the queue through this process (acked,
   * given up, or put back for its backoff), so an account's next job starts right after the one
   * before it; a job that left through another process (JetStream: another replica) is seen within
   * the adapter's account poll (`accountPollMs`). `signal` aborted: it resolves false at once.
   */
  untilFirstOfAccount(timeoutMs: number, signal?: AbortSignal): Promise<boolean>;
}

export interface JobQueueOptions {
  /** Stream / table name, e.g. `REPORTING_UPDATES`. */
  name: string;
  /** Subject prefix, e.g. `reporting.updates` (a job goes to `<prefix>.<type>`). */
  subjectPrefix: string;
  /** Deliveries before a job is given up (default 5). */
  maxAttempts?: number;
  /** Wait before redelivery n (n = 1.. ), the last one repeating (default [1000, 5000, 30000, 120000]). */
  backoffMs?: readonly number[];
  /**
   * The lease: how long a delivery may go without a sign of life before it is delivered again
   * (default 15000). The consumer renews it every `ackWaitMs / 3` while the handler runs (JetStream:
   * the message's in-progress signal; embedded: the job's lease column), so a job is retaken about
   * `ackWaitMs` after its process died, however long a healthy handler runs.
   */
  ackWaitMs?: number;
  /**
   * How long a handler may run (time spent in `wait` not counted) before its lease is no longer
   * renewed, so that a hung handler's job is delivered again `ackWaitMs` later (default 300000).
   */
  maxRunMs?: number;
  /**
   * How long an enqueued job id keeps refusing a second job with the same id, counted from its
   * enqueueing (default 120000, JetStream's default `duplicate_window`). A job still queued is
   * always refused.
   */
  dedupeWindowMs?: number;
}

export interface JobConsumerOptions<P = unknown> {
  /** Jobs handled at once by this process (default 1). */
  concurrency?: number;
  /**
   * Deliveries this process keeps while their handlers `wait` (default 32), besides the
   * `concurrency` ones running: once that many wait, the consumer takes no more jobs until one ends.
   */
  maxWaiting?: number;
  /**
   * Called once when a job's last attempt failed (the handler threw, or the process running it died
   * and its lease ran out: then `error` says so); the job is then removed from the queue.
   */
  onExhausted?: (delivery: JobDelivery<P>, error: unknown) => Promise<void>;
  /**
   * Told about every failure that does not stop the queue, for logging: a handler that threw (the
   * job is retried or exhausted), an `onExhausted` that threw (the job is removed anyway), a pull
   * from the server that failed (retried after a second).
   */
  onError?: (error: unknown, delivery?: JobDelivery<P>) => void;
}

/**
 * A job larger than the queue can store (JetStream: the server's `max_payload`, after compression).
 * `enqueue` throws it before storing any job of the call.
 */
export class JobTooLargeError extends Error {
  override readonly name = 'JobTooLargeError';
  constructor(
    readonly jobId: string,
    /** The job's size as it would be stored (compressed, when the adapter compresses). */
    readonly bytes: number,
    /** The largest job the queue stores, in the same measure. */
    readonly limit: number,
  ) {
    super(`job ${jobId}: ${bytes} bytes (as stored) exceed the queue's limit of ${limit} bytes`);
  }
}

export interface JobQueue<P = unknown> {
  /**
   * Stores the jobs durably: when it resolves they survive a crash of this process and a restart
   * of the queue's server. A job whose id was already enqueued is not queued again
   * (`duplicates` lists those ids). A job over the adapter's size bound rejects the call with a
   * JobTooLargeError, nothing stored.
   */
  enqueue(jobs: readonly JobEnvelope<P>[]): Promise<{ duplicates: string[] }>;
  /**
   * Delivers jobs to `handler` until `close()`. A job is acknowledged (removed) when the handler
   * resolves, delivered again after the backoff when it throws, and after `ackWaitMs` when the
   * process running it dies mid-way (or `maxRunMs + ackWaitMs` when the handler hangs), so handlers
   * must be idempotent.
   * Resolves once consuming started; rejects when the queue is misconfigured.
   */
  consume(handler: (delivery: JobDelivery<P>) => Promise<void>, options?: JobConsumerOptions<P>): Promise<void>;
  /** Jobs waiting or in flight (for readiness, metrics and tests). */
  depth(): Promise<number>;
  /** Stops consuming (waits for handlers in flight) and releases the connection or file. */
  close(): Promise<void>;
}
