import type { ConversionsUpdate, CostUpdate, CustomEventsUpdate, JobCounts, JobError, ReportingUpdateType, ResetUpdate } from '@funnel/contracts';
import type { PostbackIntent } from '@funnel/reporting-domain';
import type { JobEnvelope, JobQueue } from '../queue/job-queue';

export const REPORTING_UPDATES_QUEUE = Symbol.for('funnel.reporting.UpdatesQueue');
export const REPORTING_POSTBACKS_QUEUE = Symbol.for('funnel.reporting.PostbacksQueue');
export const REPORTING_APPLY = Symbol.for('funnel.reporting.Apply');
export const REPORTING_SETTINGS = Symbol.for('funnel.reporting.Settings');
export const REPORTING_JOB_OBSERVER = Symbol.for('funnel.reporting.JobObserver');

/** What an update job carries on the queue: the validated update of the job's type. */
export type UpdatePayload = ConversionsUpdate | CustomEventsUpdate | CostUpdate | ResetUpdate;

export type UpdateJob = JobEnvelope<UpdatePayload> & { type: ReportingUpdateType };

/** An accepted update: its type (the job's) and the validated update. */
export type AcceptedUpdate =
  | { type: 'conversions'; update: ConversionsUpdate }
  | { type: 'customevents'; update: CustomEventsUpdate }
  | { type: 'cost'; update: CostUpdate }
  | { type: 'reset'; update: ResetUpdate };

/** A postback delivery job: the URL to GET (with its secrets: the queue is the service's own store). */
export interface PostbackPayload {
  jobId: string;
  deliveryId: string;
  hitId: string;
  url: string;
}

export type UpdatesQueue = JobQueue<UpdatePayload>;
export type PostbacksQueue = JobQueue<PostbackPayload>;

/** What applying a job came to: its counts and row errors, and the postbacks its rows decided on. */
export interface AppliedJob {
  counts: JobCounts;
  errors: JobError[];
  postbacks: PostbackIntent[];
  /** The indexes of the rows that changed a hit (noop, notFound and failed rows left out); absent: unknown, every row. */
  appliedRows?: number[];
}

/** Applies one update job to the hit warehouse, idempotently (a redelivered job applies no row twice). */
export interface ApplyUpdate {
  (job: UpdateJob): Promise<AppliedJob>;
  /**
   * Consecutive jobs of one account applied as one write of the warehouse, when the appliers can:
   * `rows` is a job's rows when it can join a group (undefined: it is applied on its own), `apply`
   * applies the jobs in order and answers each one's result as applying it alone would (it rejects,
   * writing nothing, when one of them fails).
   */
  group?: { rows(job: UpdateJob): number | undefined; apply(jobs: readonly UpdateJob[]): Promise<AppliedJob[]> };
}

export interface ReportingSettings {
  /** Update jobs applied at once by this process (default 2). */
  workerConcurrency?: number;
  /**
   * Update jobs this process keeps waiting for their account's turn (another job of the account
   * applying), besides those it applies (default 32): other accounts' jobs are taken meanwhile.
   */
  waitingJobs?: number;
  /**
   * How long a job waits for an earlier job of its account that is still queued before it gives
   * up its attempt (retried after the backoff; default 300000).
   */
  orderWaitMs?: number;
  /** Postback deliveries sent at once by this process (default 8). */
  postbackConcurrency?: number;
  /** Webhook jobs (event fan-outs and deliveries) handled at once by this process (default 8). */
  webhookConcurrency?: number;
  /** Attempts of a webhook delivery, the webhook queue's maxAttempts (default 6). */
  webhookMaxAttempts?: number;
  /** Don't consume the queues (a process that only accepts updates, e.g. the bench's baseline). */
  acceptOnly?: boolean;
}

/** Told of each update job applied or exhausted, before the job is recorded finished (the incoming postback log resolves its rows). */
export interface ReportingJobObserver {
  applied(job: JobEnvelope<UpdatePayload>, result: AppliedJob): Promise<void>;
  exhausted(job: JobEnvelope<UpdatePayload>, error: unknown): Promise<void>;
}

/** A function told of each applied update job (its envelope) before it is recorded finished; a throw retries the job (its rows already applied). */
export const REPORTING_APPLIED_LISTENER = Symbol.for('funnel.reporting.AppliedListener');
