import { entranceQueryOf, segmentCosts } from '@funnel/reporting-domain';
import type { AppliedRow, HitState, JobStore } from '../hits/hit-store';
import type { ApplyJob, ApplyResult, CostJobPayload } from './apply-types';
import { betweenSlices, errorMessage, recordedRows, summarize } from './job-rows';

/**
 * Applies a cost job, one segment (row) at a time in its own store transaction: the segment's
 * entrances (the update's window, funnels and traffic sources with the segment's country and
 * tracking fields) get the per-entrance cost, or the whole-segment cost spread to the cent in hitId
 * order. A segment without entrances is a noop. Segments are applied in order, so where two cover
 * the same entrance the later one's cost stands. The event loop runs between two segments.
 */
export async function applyCost(store: JobStore, job: ApplyJob<CostJobPayload>): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  const recorded = await recordedRows(store, accountId, jobId);
  for (let rowIndex = 0; rowIndex < payload.segments.length; rowIndex++) {
    if (recorded.has(rowIndex)) continue;
    if (rowIndex > 0) await betweenSlices();
    const segment = payload.segments[rowIndex];
    const entrances = await store.findEntrances(accountId, entranceQueryOf(payload, segment));
    let row: AppliedRow;
    let changed: HitState[] = [];
    try {
      const costs = segmentCosts(
        segment,
        entrances.map((hit) => hit.hitId),
      );
      changed = entrances.map((hit) => ({ ...hit, cost: costs.get(hit.hitId)! }));
      row = { rowIndex, outcome: entrances.length > 0 ? 'applied' : 'noop', hits: entrances.length, postbacks: [] };
    } catch (error) {
      row = { rowIndex, outcome: 'failed', error: errorMessage(error), hits: 0, postbacks: [] };
    }
    await store.commitRows(accountId, jobId, changed, [row]);
    recorded.set(rowIndex, row);
  }
  return summarize(recorded.values(), () => undefined);
}
