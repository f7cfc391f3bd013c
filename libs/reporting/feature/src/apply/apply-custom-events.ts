import { applyCustomEvent } from '@funnel/reporting-domain';
import type { JobStore } from '../hits/hit-store';
import type { ApplyDeps, ApplyJob, ApplyResult, CustomEventsJobPayload } from './apply-types';
import { applyHitRows } from './job-rows';

/**
 * Applies a custom events job: each row adds its count to the hit's count of the event. Custom events
 * decide no traffic-source postback (a source's postback is for conversions), so `postbackCalls` and
 * `disablePostbacks` have nothing to turn off.
 */
export async function applyCustomEvents(store: JobStore, job: ApplyJob<CustomEventsJobPayload>, deps: Pick<ApplyDeps, 'batchSize'> = {}): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  return applyHitRows(store, { accountId, jobId, rows: payload.hits, batchSize: deps.batchSize }, (hit, row) => ({
    outcome: 'applied' as const,
    hit: applyCustomEvent(hit, row),
  }));
}
