import { resetFilterOf } from '@funnel/reporting-domain';
import type { JobStore } from '../hits/hit-store';
import type { ApplyJob, ApplyResult, ResetJobPayload } from './apply-types';
import { summarize } from './job-rows';

/** Applies a reset job (one row): removes the account's hits the filter matches, once, whatever the deliveries. */
export async function applyReset(store: JobStore, job: ApplyJob<ResetJobPayload>): Promise<ApplyResult> {
  const row = await store.deleteHits(job.accountId, job.jobId, 0, resetFilterOf(job.payload));
  return summarize([row], () => undefined);
}

/** The number of hits a reset with these parameters would remove now (`POST /reporting/update/reset/`). */
export function countResetHits(store: JobStore, accountId: string, params: ResetJobPayload): Promise<number> {
  return store.countHits(accountId, resetFilterOf(params));
}
