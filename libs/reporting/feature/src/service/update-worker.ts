import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { REPORTING_WEBHOOKS_QUEUE, type WebhooksQueue } from '../webhooks/webhook-jobs';
import { updateEventJobs } from '../webhooks/webhook-events';
import type { ReportingUpdateType } from '@funnel/contracts';
import type { JobDelivery, JobEnvelope } from '../queue/job-queue';
import { AccountTurns, type GroupMember } from './account-turns';
import { JobRecords } from './job-records';
import { QueueConsumer } from './queue-consumer';
import {
  AcceptedUpdate,
  AppliedJob,
  ApplyUpdate,
  PostbackPayload,
  PostbacksQueue,
  REPORTING_APPLIED_LISTENER,
  REPORTING_APPLY,
  REPORTING_JOB_OBSERVER,
  ReportingJobObserver,
  REPORTING_POSTBACKS_QUEUE,
  REPORTING_SETTINGS,
  REPORTING_UPDATES_QUEUE,
  ReportingSettings,
  UpdateJob,
  UpdatePayload,
  UpdatesQueue,
} from './reporting.tokens';

const DEFAULT_ORDER_WAIT_MS = 300_000;
const DEFAULT_WAITING_JOBS = 32;
/** The most rows, and jobs, a group of an account's jobs applies as one write of the warehouse. */
const GROUP_ROWS = 1000;
const GROUP_JOBS = 64;

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Consumes the update queue, one job of an account at a time, in the order they were accepted: a
 * delivery first waits until no earlier job of its account is still in the queue (waiting, in
 * flight here or in another replica, or in its backoff: an earlier job leaves the queue only once it
 * is applied), kept alive and without taking a worker slot meanwhile, so other accounts' jobs run. Then the job is recorded as queued when the route that accepted it died
 * before recording it (the record comes from the job's envelope), marked started, applied (idempotently: the hit store keeps
 * which rows a job applied, in the same write), its postbacks recorded and queued, then marked
 * finished; only then is it acknowledged. A crash anywhere redelivers the job, which skips the rows
 * already applied and queues the same postback ids again (the queue drops duplicates). The queues
 * are closed by whoever opened them (the runtime), after the app has stopped.
 *
 * Groups: when a job's turn comes and the jobs right after it in its account's order are waiting
 * here (small jobs of a type the appliers can group), it takes them and applies them all as one
 * write of the warehouse (`ApplyUpdate.group`), each job with its own rows, result and records; each
 * is acknowledged once its records are written. A group that fails writes nothing: its first job is
 * then applied alone and the others wait for their turn again.
 */
@Injectable()
export class UpdateWorker implements OnApplicationBootstrap {
  private readonly logger = new Logger('ReportingWorker');

  constructor(
    @Inject(REPORTING_UPDATES_QUEUE) private readonly updates: UpdatesQueue,
    @Inject(REPORTING_POSTBACKS_QUEUE) private readonly postbacks: PostbacksQueue,
    @Inject(REPORTING_APPLY) private readonly apply: ApplyUpdate,
    @Inject(REPORTING_SETTINGS) private readonly settings: ReportingSettings,
    private readonly records: JobRecords,
    @Optional() @Inject(REPORTING_WEBHOOKS_QUEUE) private readonly webhooks?: WebhooksQueue,
    /** Told of each job applied or exhausted before it is recorded finished (the incoming postback log). */
    @Optional() @Inject(REPORTING_JOB_OBSERVER) private readonly observer?: ReportingJobObserver,
    /**
     * Told of each applied job, with the rows that changed a hit (as the webhook events), before it is
     * recorded finished (ad-platform conversion uploads).
     */
    @Optional()
    @Inject(REPORTING_APPLIED_LISTENER)
    private readonly appliedListener?: (job: JobEnvelope<unknown>, appliedRows?: readonly number[]) => Promise<void>,
  ) {}

  private readonly consumer = new QueueConsumer(this.updates, this.settings);
  private readonly turns = new AccountTurns<UpdatePayload>();

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start((delivery) => this.handle(delivery), {
      concurrency: this.settings.workerConcurrency ?? 2,
      maxWaiting: this.settings.waitingJobs ?? DEFAULT_WAITING_JOBS,
      onExhausted: async ({ job }, error) => {
        this.logger.error({ jobId: job.jobId, err: messageOf(error) }, 'reporting job failed on its last attempt');
        const rows = await this.recordQueued(job);
        await this.observer?.exhausted(job, error);
        await this.records.finished(job.accountId, job.jobId, 'failed', { rows, applied: 0, noop: 0, notFound: 0, failed: rows }, [
          { rowIndex: null, code: 'REPORTING.JOB_FAILED', message: messageOf(error) },
        ]);
      },
    });
  }

  async handle(delivery: JobDelivery<UpdatePayload>): Promise<void> {
    for (;;) {
      const turn = await delivery.wait(this.turns.turn(delivery, (signal) => this.turn(delivery, signal)));
      if (turn.kind === 'applied') return this.finishJob(delivery.job, turn.result);
      if (turn.kind === 'first') break;
      // The group that took it failed: its turn again.
    }
    const group = this.apply.group;
    const rows = group?.rows(delivery.job as UpdateJob);
    if (!group || rows === undefined || rows > GROUP_ROWS) return this.applyJob(delivery);
    let total = rows;
    const members = await this.turns.gather(delivery, (next, count) => {
      const more = group.rows(next.job as UpdateJob);
      if (more === undefined || count + 2 > GROUP_JOBS || total + more > GROUP_ROWS) return false;
      total += more;
      return true;
    });
    if (members.length === 0) return this.applyJob(delivery);
    await this.applyGroup(delivery, members);
  }

  /** The leader's job and its members' applied as one write; each member finishes its own job once settled. */
  private async applyGroup(leader: JobDelivery<UpdatePayload>, members: GroupMember<UpdatePayload>[]): Promise<void> {
    const deliveries = [leader, ...members.map((member) => member.delivery)];
    let results: AppliedJob[];
    try {
      for (const { job, attempt } of deliveries) {
        await this.recordQueued(job);
        await this.records.started(job.accountId, job.jobId, attempt);
      }
      results = await this.apply.group!.apply(deliveries.map((delivery) => delivery.job as UpdateJob));
    } catch (error) {
      this.logger.warn(
        { jobId: leader.job.jobId, jobs: deliveries.length, err: messageOf(error) },
        'a group of reporting jobs failed: applying its jobs one by one',
      );
      for (const member of members) member.settle({ kind: 'alone' });
      return this.applyJob(leader);
    }
    members.forEach((member, i) => member.settle({ kind: 'applied', result: results[i + 1] }));
    await this.finishJob(leader.job, results[0]);
  }

  /**
   * The job's turn: no earlier job of its account is still queued (the queue answers by its own
   * order, so this holds across replicas and gives the jobs of an account one at a time). The queue
   * looks again as soon as a job of the account leaves it (no polling between an account's jobs in
   * one process). A job still not first after `orderWaitMs` (its earlier job cannot be taken: every
   * slot for waiting jobs is full) gives up this attempt and is retried after its backoff.
   */
  private async turn(delivery: JobDelivery<UpdatePayload>, signal?: AbortSignal): Promise<void> {
    const { accountId, jobId } = delivery.job;
    if (!(await delivery.untilFirstOfAccount(this.settings.orderWaitMs ?? DEFAULT_ORDER_WAIT_MS, signal)))
      throw new Error(`job ${jobId}: an earlier job of account ${accountId} is still queued`);
  }

  private async applyJob({ job, attempt }: JobDelivery<UpdatePayload>): Promise<void> {
    await this.recordQueued(job);
    await this.records.started(job.accountId, job.jobId, attempt);
    await this.finishJob(job, await this.apply(job as UpdateJob));
  }

  /** After the job's rows are applied: its postbacks recorded and queued, then the job recorded finished. */
  private async finishJob(job: JobEnvelope<UpdatePayload>, result: AppliedJob): Promise<void> {
    const calls = result.postbacks.filter((p) => p.action === 'call');
    await this.records.postbacksDecided(job.accountId, job.jobId, result.postbacks);
    if (calls.length) {
      const queuedAt = new Date().toISOString();
      await this.postbacks.enqueue(
        calls.map((p) => ({
          jobId: p.deliveryId,
          type: 'postback',
          accountId: job.accountId,
          queuedAt,
          payload: { jobId: job.jobId, deliveryId: p.deliveryId, hitId: p.hitId, url: p.target } satisfies PostbackPayload,
        })),
      );
    }
    // Conversions and custom events applied: their webhook events (fanned out to the configs that take them).
    const events = this.webhooks ? updateEventJobs(job, result.appliedRows) : [];
    if (events.length) await this.webhooks!.enqueue(events);
    await this.appliedListener?.(job, result.appliedRows);
    await this.observer?.applied(job, result);
    await this.records.finished(job.accountId, job.jobId, 'done', result.counts, result.errors);
  }

  /**
   * Records the job as queued, from its envelope, unless it is already (the route records a job
   * after enqueueing it: a crash in between leaves it to the worker; recording twice records
   * nothing). Returns the job's rows.
   */
  private async recordQueued(job: JobEnvelope<UpdatePayload>): Promise<number> {
    const rows = rowsOf({ type: job.type, update: job.payload } as AcceptedUpdate);
    await this.records.queued(job.accountId, job.jobId, job.type as ReportingUpdateType, rows, job.queuedAt, job.jobId);
    return rows;
  }
}

/** The rows of an update: conversions and custom events, one per hit; cost, one per segment; reset, 1. */
export function rowsOf(accepted: AcceptedUpdate): number {
  switch (accepted.type) {
    case 'conversions':
    case 'customevents':
      return accepted.update.hits.length;
    case 'cost':
      return accepted.update.segments.length;
    case 'reset':
      return 1;
  }
}
