import { applyCustomEvent, type Hit } from '@funnel/reporting-domain';
import type { AppliedRow, HitStore } from '../hits/hit-store';
import type { ApplyDeps, ApplyJob, ApplyResult, CustomEventsJobPayload } from './apply-types';
import { errorMessage, pendingBatches, recordedRows, summarize } from './job-rows';

/**
 * Applies a custom events job: each row adds its count to the hit's count of the event. Custom events
 * decide no traffic-source postback (a source's postback is for conversions), so `postbackCalls` and
 * `disablePostbacks` have nothing to turn off.
 */
export async function applyCustomEvents(store: HitStore, job: ApplyJob<CustomEventsJobPayload>, deps: Pick<ApplyDeps, 'batchSize'> = {}): Promise<ApplyResult> {
  const { accountId, jobId, payload } = job;
  const recorded = await recordedRows(store, accountId, jobId);
  for (const batch of pendingBatches(payload.hits.length, recorded, deps.batchSize ?? 1000)) {
    const hits = new Map((await store.getHits(accountId, [...new Set(batch.map((index) => payload.hits[index].hitId))])).map((hit) => [hit.hitId, hit]));
    const changed = new Map<string, Hit>();
    const rows: AppliedRow[] = [];
    for (const rowIndex of batch) {
      const row = payload.hits[rowIndex];
      const hit = hits.get(row.hitId);
      if (!hit) {
        rows.push({ rowIndex, outcome: 'notFound', hits: 0, postbacks: [] });
        continue;
      }
      try {
        const next = applyCustomEvent(hit, row);
        hits.set(hit.hitId, next);
        changed.set(hit.hitId, next);
        rows.push({ rowIndex, outcome: 'applied', hits: 1, postbacks: [] });
      } catch (error) {
        rows.push({ rowIndex, outcome: 'failed', error: errorMessage(error), hits: 0, postbacks: [] });
      }
    }
    await store.commitRows(accountId, jobId, [...changed.values()], rows);
    for (const row of rows) recorded.set(row.rowIndex, row);
  }
  return summarize(recorded.values(), (rowIndex) => payload.hits[rowIndex]?.hitId);
}
