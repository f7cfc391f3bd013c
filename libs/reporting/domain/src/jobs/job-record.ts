import type { JobCounts, JobError, ReportingJob, ReportingUpdateType } from '@funnel/contracts';

/**
 * A reporting job's record, event-sourced in a stream of its own per account
 * (`reportingjob-<accountId>.<jobId>`): queued by the route that accepted it, started and finished
 * by the worker that applied it (again on a redelivery).
 */
export const JobEventTypes = {
  queued: 'ReportingJobQueued',
  started: 'ReportingJobStarted',
  finished: 'ReportingJobFinished',
} as const;

export type JobEvent =
  | { type: typeof JobEventTypes.queued; data: { jobId: string; type: ReportingUpdateType; rows: number; queuedAt: string } }
  | { type: typeof JobEventTypes.started; data: { startedAt: string; attempt: number } }
  | { type: typeof JobEventTypes.finished; data: { status: 'done' | 'failed'; finishedAt: string; counts: JobCounts; errors: JobError[] } };

export const jobStream = (accountId: string, jobId: string) => `reportingjob-${accountId}.${jobId}`;

const NO_COUNTS = (rows: number): JobCounts => ({ rows, applied: 0, noop: 0, notFound: 0, failed: 0 });

/** The record after `event` (`undefined` before the job was queued). */
export function evolveJob(state: ReportingJob | undefined, event: JobEvent): ReportingJob | undefined {
  switch (event.type) {
    case JobEventTypes.queued:
      return {
        jobId: event.data.jobId,
        type: event.data.type,
        status: 'queued',
        queuedAt: event.data.queuedAt,
        startedAt: null,
        finishedAt: null,
        counts: NO_COUNTS(event.data.rows),
        errors: [],
      };
    case JobEventTypes.started:
      // A redelivery of a finished job (its acknowledgement was lost) does not reopen the record.
      if (!state || state.finishedAt) return state;
      return { ...state, status: 'running', startedAt: state.startedAt ?? event.data.startedAt };
    case JobEventTypes.finished:
      if (!state) return state;
      return { ...state, status: event.data.status, finishedAt: event.data.finishedAt, counts: event.data.counts, errors: event.data.errors };
  }
}

export function foldJob(events: readonly JobEvent[]): ReportingJob | undefined {
  return events.reduce<ReportingJob | undefined>(evolveJob, undefined);
}
