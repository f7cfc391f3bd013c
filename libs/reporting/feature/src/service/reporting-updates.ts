import { Inject, Injectable } from '@nestjs/common';
import { CallerContext, ErrorCodes, ID_RULE, JobsAccepted, ReportingErrorCodes, ServiceError, generateAssetId, isValidAssetId } from '@funnel/contracts';
import { JobTooLargeError } from '../queue/job-queue';
import { IdempotencyKeys, JobRecords } from './job-records';
import { AcceptedUpdate, REPORTING_UPDATES_QUEUE, UpdatesQueue } from './reporting.tokens';
import { rowsOf } from './update-worker';

/**
 * Accepting an update: it was validated by the caller; here it becomes one job, appended to the
 * durable queue and then recorded as queued, and the answer names it. Queue first: a crash between
 * the two steps leaves a queued job without a record, which the worker writes from the job when it
 * takes it (UpdateWorker.handle), never a record without a job. A job the queue cannot store (too
 * large) is a 413 with nothing queued or recorded. With an `Idempotency-Key`, a retried request gets
 * the first job back; when that job has no record yet (the first request died before writing it),
 * the retry queues it again under its own id (the queue drops the duplicate when the first enqueue
 * had landed) and records it.
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
      // A record is written only once the job is on the queue: then there is nothing left to do.
      if (!claim.first && (await this.records.get(context.accountId, claim.jobId))) return { jobIds: [claim.jobId], queuedAt: claim.queuedAt };
      ({ jobId, queuedAt } = claim);
    }
    try {
      await this.queue.enqueue([{ jobId, type: accepted.type, accountId: context.accountId, queuedAt, payload: accepted.update }]);
    } catch (error) {
      if (error instanceof JobTooLargeError) throw updateTooLarge(error);
      throw error;
    }
    await this.records.queued(context.accountId, jobId, accepted.type, rowsOf(accepted), queuedAt, context.correlationId);
    return { jobIds: [jobId], queuedAt };
  }
}

function updateTooLarge(error: JobTooLargeError): ServiceError {
  const message = `the update takes ${error.bytes} bytes on the queue (compressed), more than its limit of ${error.limit} bytes; send it in smaller updates`;
  return new ServiceError(413, ReportingErrorCodes.UPDATE_TOO_LARGE, message, [{ field: 'body', code: 'maxQueuedBytes', message }]);
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
