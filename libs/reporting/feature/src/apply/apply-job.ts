import type { HitStore, JobStore } from '../hits/hit-store';
import { applyConversions } from './apply-conversions';
import { applyCost } from './apply-cost';
import { applyCustomEvents } from './apply-custom-events';
import { applyReset } from './apply-reset';
import { JobGroupStore } from './job-group';
import type {
  ApplyDeps,
  ApplyJob,
  ApplyResult,
  ConversionsJobPayload,
  CostJobPayload,
  CustomEventsJobPayload,
  ReportingUpdateType,
  ResetJobPayload,
} from './apply-types';

/** Applies a reporting job of any update type (its JobEnvelope `type`). */
export async function applyReportingJob(store: JobStore, job: ApplyJob<unknown> & { type: string }, deps: ApplyDeps): Promise<ApplyResult> {
  const appliers: Record<ReportingUpdateType, () => Promise<ApplyResult>> = {
    conversions: () => applyConversions(store, job as ApplyJob<ConversionsJobPayload>, deps),
    customevents: () => applyCustomEvents(store, job as ApplyJob<CustomEventsJobPayload>, deps),
    cost: () => applyCost(store, job as ApplyJob<CostJobPayload>),
    reset: () => applyReset(store, job as ApplyJob<ResetJobPayload>),
  };
  const apply = Object.hasOwn(appliers, job.type) ? appliers[job.type as ReportingUpdateType] : undefined;
  if (!apply) throw new Error(`unknown reporting job type: ${job.type}`);
  return apply();
}

/**
 * The hit ids a job's rows name, for the update types whose rows each name one hit (conversions and
 * custom events): those jobs can be applied in a group (`applyJobGroup`). Undefined for the others.
 */
export function rowHitIdsOf(job: ApplyJob<unknown> & { type: string }): string[] | undefined {
  const byType: Partial<Record<ReportingUpdateType, () => string[]>> = {
    conversions: () => (job.payload as ConversionsJobPayload).hits.map((row) => row.hitId),
    customevents: () => (job.payload as CustomEventsJobPayload).hits.map((row) => row.hitId),
  };
  return Object.hasOwn(byType, job.type) ? byType[job.type as ReportingUpdateType]!() : undefined;
}

/**
 * Applies consecutive jobs of one account (in that order, each of a type `rowHitIdsOf` answers for)
 * as one write: their recorded rows and hits are read at once, each job is applied as
 * `applyReportingJob` would (a job sees the changes of the jobs before it) and every job's changes
 * and rows are written with one `commitJobs`, so each job keeps its own rows, results and
 * idempotency. When a job fails nothing is written and the call rejects.
 */
export async function applyJobGroup(
  store: HitStore,
  jobs: readonly (ApplyJob<unknown> & { type: string })[],
  depsOf: (job: ApplyJob<unknown> & { type: string }) => ApplyDeps,
): Promise<ApplyResult[]> {
  if (jobs.length === 0) return [];
  const accountId = jobs[0].accountId;
  const hitIds = jobs.map((job) => {
    if (job.accountId !== accountId) throw new Error('a group holds jobs of one account');
    const ids = rowHitIdsOf(job);
    if (!ids) throw new Error(`a ${job.type} job is applied on its own`);
    return ids;
  });
  const group = new JobGroupStore(store, accountId);
  await group.prefetch(
    jobs.map((job) => job.jobId),
    hitIds.flat(),
  );
  const results: ApplyResult[] = [];
  for (const job of jobs) results.push(await applyReportingJob(group, job, depsOf(job)));
  await group.commit();
  return results;
}
