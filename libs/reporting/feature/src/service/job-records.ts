import { createHash } from 'node:crypto';
import {
  CallerContext,
  ErrorCodes,
  IDEMPOTENCY_KEY_TTL_MS,
  JobCounts,
  JobError,
  PostbackDeliveryView,
  ReportingErrorCodes,
  ReportingJob,
  ReportingUpdateType,
  ServiceError,
} from '@funnel/contracts';
import { EventStore, NewEvent, WrongExpectedRevisionError } from '@funnel/eventstore';
import {
  JobEvent,
  JobEventTypes,
  PostbackEvent,
  PostbackEventTypes,
  PostbackIntent,
  QueuedPostback,
  foldJob,
  foldPostbacks,
  jobStream,
  maskPostbackUrl,
  postbackStream,
} from '@funnel/reporting-domain';
import type { PostbackLogStore } from '../postback-log/postback-log-store';
import { decidedPostbacks, rowIndexOf } from '../postback-log/postback-log-entries';

const event = (e: JobEvent | PostbackEvent, accountId: string, correlationId?: string): NewEvent => ({
  type: e.type,
  data: e.data as unknown as Record<string, unknown>,
  metadata: { accountId, correlationId, occurredAt: new Date().toISOString() },
});

/**
 * Job and postback records on the event store port: each job's stream is written by the route
 * that accepted it and the workers that applied it, and read back (a few events) on every lookup.
 * Scoped by account through the stream names. With a postback log, each postback decided and each
 * delivery attempt is also written there (after its event), for the window queries of
 * POST /reporting/logs/postbacks.
 */
export class JobRecords {
  constructor(
    private readonly events: EventStore,
    private readonly log?: PostbackLogStore,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records an accepted job; a second call for the same job (a retried request) records nothing. */
  async queued(accountId: string, jobId: string, type: ReportingUpdateType, rows: number, queuedAt: string, correlationId?: string): Promise<void> {
    const e: JobEvent = { type: JobEventTypes.queued, data: { jobId, type, rows, queuedAt } };
    try {
      await this.events.append(jobStream(accountId, jobId), [event(e, accountId, correlationId)], { expectedRevision: 'no_stream' });
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  }

  async started(accountId: string, jobId: string, attempt: number): Promise<void> {
    const e: JobEvent = { type: JobEventTypes.started, data: { startedAt: new Date().toISOString(), attempt } };
    await this.events.append(jobStream(accountId, jobId), [event(e, accountId, jobId)], { expectedRevision: 'any' });
  }

  async finished(accountId: string, jobId: string, status: 'done' | 'failed', counts: JobCounts, errors: JobError[]): Promise<void> {
    const e: JobEvent = { type: JobEventTypes.finished, data: { status, finishedAt: new Date().toISOString(), counts, errors } };
    await this.events.append(jobStream(accountId, jobId), [event(e, accountId, jobId)], { expectedRevision: 'any' });
  }

  async get(accountId: string, jobId: string): Promise<ReportingJob | undefined> {
    const recorded = await this.events.readStream(jobStream(accountId, jobId));
    return foldJob(recorded.map((r) => ({ type: r.type, data: r.data }) as JobEvent));
  }

  /** The job of the caller's account, or a 404 (another account's job included). */
  async require(accountId: string, jobId: string): Promise<ReportingJob> {
    const job = await this.get(accountId, jobId);
    if (!job) throw ServiceError.notFound(ReportingErrorCodes.JOB_NOT_FOUND, `no job ${jobId}`);
    return job;
  }

  async postbacksQueued(accountId: string, jobId: string, postbacks: QueuedPostback[]): Promise<void> {
    if (!postbacks.length) return;
    const e: PostbackEvent = { type: PostbackEventTypes.queued, data: { postbacks } };
    await this.events.append(postbackStream(accountId, jobId), [event(e, accountId, jobId)], { expectedRevision: 'any' });
  }

  /**
   * The postbacks a job's rows decided: recorded with their URLs masked (the full URL is only in the
   * delivery job), `call`s as queued and the others as recorded, then logged (a redelivered job
   * logs nothing twice).
   */
  async postbacksDecided(accountId: string, jobId: string, postbacks: readonly PostbackIntent[]): Promise<void> {
    await this.postbacksQueued(
      accountId,
      jobId,
      postbacks.map((p) => ({ deliveryId: p.deliveryId, hitId: p.hitId, url: maskPostbackUrl(p.target), action: p.action })),
    );
    if (postbacks.length) await this.log?.decided(decidedPostbacks(accountId, jobId, postbacks, this.clock()));
  }

  async postbackAttempted(accountId: string, jobId: string, data: Extract<PostbackEvent, { type: 'ReportingPostbackAttempted' }>['data']): Promise<void> {
    const e: PostbackEvent = { type: PostbackEventTypes.attempted, data };
    await this.events.append(postbackStream(accountId, jobId), [event(e, accountId, jobId)], { expectedRevision: 'any' });
    await this.log?.attempted({
      accountId,
      jobId,
      rowIndex: rowIndexOf(data.deliveryId),
      attempt: data.attempt,
      outcome: data.outcome,
      error: data.error,
      atMs: this.clock(),
    });
  }

  async postbacks(accountId: string, jobId: string): Promise<PostbackDeliveryView[]> {
    const recorded = await this.events.readStream(postbackStream(accountId, jobId));
    return foldPostbacks(recorded.map((r) => ({ type: r.type, data: r.data }) as PostbackEvent));
  }
}

/** Printable ASCII without spaces... as billing's keys: 1..255 printable characters. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface IdempotentClaim {
  /** The job the key stands for. */
  jobId: string;
  queuedAt: string;
  /** True when this request claimed the key (it queues the job); false when an earlier request did. */
  first: boolean;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface ClaimedKey {
  jobId: string;
  queuedAt: string;
  fingerprint: string;
}

/**
 * `Idempotency-Key` of the update routes: per account, the first request with a key claims it for
 * its job for 24 h (`reportingidempotency-<accountId>.<sha256(key)>`, appended at the revision read,
 * so of two racing requests one wins); a retry with the same body within that time gets that job
 * back, with another body a 409; after it the key claims a new job.
 */
export class IdempotencyKeys {
  constructor(
    private readonly events: EventStore,
    private readonly clock: () => number = Date.now,
  ) {}

  async claim(context: CallerContext, key: string, fingerprint: string, candidate: { jobId: string; queuedAt: string }): Promise<IdempotentClaim> {
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw ServiceError.invalidField(
        'Idempotency-Key',
        'isIdempotencyKey',
        'Idempotency-Key must be 1..255 printable characters without spaces',
        ErrorCodes.VALIDATION,
      );
    }
    const stream = `reportingidempotency-${context.accountId}.${sha256(key)}`;
    const digest = sha256(fingerprint);
    // A lost race reads the winner's claim on the next turn; the bound only guards against a store that never settles.
    for (let attempt = 0; attempt < 3; attempt++) {
      const last = (await this.events.readStream(stream)).at(-1);
      const claimed = last?.data as ClaimedKey | undefined;
      if (claimed && this.clock() - Date.parse(claimed.queuedAt) < IDEMPOTENCY_KEY_TTL_MS) {
        if (claimed.fingerprint !== digest) {
          throw ServiceError.conflict(ReportingErrorCodes.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key was used with another request');
        }
        return { jobId: claimed.jobId, queuedAt: claimed.queuedAt, first: false };
      }
      try {
        const data: ClaimedKey = { ...candidate, fingerprint: digest };
        await this.events.append(
          stream,
          [{ type: 'ReportingIdempotencyKeyClaimed', data: { ...data }, metadata: { accountId: context.accountId, correlationId: context.correlationId } }],
          { expectedRevision: last ? last.revision : 'no_stream' },
        );
        return { ...candidate, first: true };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw ServiceError.conflict(ReportingErrorCodes.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key is being claimed by concurrent requests; retry');
  }
}
