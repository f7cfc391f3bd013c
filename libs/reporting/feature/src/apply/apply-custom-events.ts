import { applyCustomEvent } from '@funnel/reporting-domain';
import type { JobStore } from '../hits/hit-store';
import type { ApplyDeps, ApplyJob, ApplyResult, CustomEventsJobPayload } from './apply-types';
import { applyHitRows, type StateReads } from './job-rows';

const NO_TRACKING_FIELDS: StateReads = { trackingSlots: () => [], complete: async (states) => states };

/**
 * Applies a custom events job: each row adds its count to the hit's count of the event. Custom events
 * decide no traffic-source postback (a source's postback is for conversions), so `postbackCalls` and
 * `disablePostbacks` have nothing to turn off. Only the hits' event counts are read and written.
 */
export async function applyCustomEvents(store: JobStore, job: ApplyJob<CustomEventsJobPayload>, deps: Pick<ApplyDeps, 'batchSize'> = {}): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  return applyHitRows(
    store,
    { accountId, jobId, rows: payload.hits, batchSize: deps.batchSize, fields: ['customEvents'], reads: NO_TRACKING_FIELDS },
    (hit, row) => ({
      outcome: 'applied' as const,
      hit: applyCustomEvent(hit, row),
    }),
  );
}
