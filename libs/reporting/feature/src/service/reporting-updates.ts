import { Inject, Injectable } from '@nestjs/common';
import { CallerContext, ErrorCodes, ID_RULE, JobsAccepted, ServiceError, generateAssetId, isValidAssetId } from '@funnel/contracts';
import { IdempotencyKeys, JobRecords } from './job-records';
import { AcceptedUpdate, REPORTING_UPDATES_QUEUE, UpdatesQueue } from './reporting.tokens';
import { rowsOf } from './update-worker';

/**
 * Accepting an update: it was validated by the caller; here it becomes one job, recorded as queued
 * and appended to the durable queue, and the answer names it. With an `Idempotency-Key`, a retried
 * request gets the first job back (and re-queues it only if it never started: the queue drops the
 * duplicate when the first enqueue had landed).
 */
@Injectable()
export class ReportingUpdates {
  constructor(
    @Inject(REPORTING_UPDATES_QUEUE) private readonly queue: UpdatesQueue,
    private readonly records: JobRecords,
    private readonly keys: IdempotencyKeys,
  ) {}

  async accept(context: CallerContext, accepted: AcceptedUpdate, idempotencyKey?: string): Promise<JobsAccepted> {
    let jobId = generateAssetId();
    let queuedAt = new Date().toISOString();
    if (idempotencyKey !== undefined) {
      // The same request is the same validated update (defaults filled in, decimals canonical).
      const claim = await this.keys.claim(context, idempotencyKey, `${accepted.type}\n${JSON.stringify(accepted.update)}`, {
        jobId,
        queuedAt,
      });
      if (!claim.first) {
        const job = await this.records.get(context.accountId, claim.jobId);
        if (job && job.status !== 'queued') return { jobIds: [claim.jobId], queuedAt: claim.queuedAt };
      }
      ({ jobId, queuedAt } = claim);
    }
    await this.records.queued(context.accountId, jobId, accepted.type, rowsOf(accepted), queuedAt, context.correlationId);
    await this.queue.enqueue([{ jobId, type: accepted.type, accountId: context.accountId, queuedAt, payload: accepted.update }]);
    return { jobIds: [jobId], queuedAt };
  }
}

/** A job id in a query: required, in the asset-id format (job ids are generated as asset ids). */
export function jobIdOf(query: Record<string, unknown> | undefined): string {
  const jobId = query?.jobId;
  if (jobId === undefined || jobId === '') throw ServiceError.invalidField('jobId', 'required', 'jobId is required');
  if (typeof jobId !== 'string' || !isValidAssetId(jobId)) {
    throw ServiceError.invalidField('jobId', 'isAssetId', `jobId must be a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
  }
  return jobId;
}
