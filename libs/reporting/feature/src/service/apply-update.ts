import type { HitStore } from '../hits/hit-store';
import { applyReportingJob } from '../apply/apply-job';
import type { ApplyUpdate } from './reporting.tokens';
import { TrafficSourceLookup, cachedPerJob } from './traffic-sources';

/** The appliers of each update type on the hit store, with traffic sources read from assets-service (once per source and job). */
export function applyReportingUpdate({ hits, sources, batchSize }: { hits: HitStore; sources: TrafficSourceLookup; batchSize?: number }): ApplyUpdate {
  return async (job) => {
    const lookup = cachedPerJob(sources);
    const result = await applyReportingJob(hits, job, { trafficSource: (id: string) => lookup(job.accountId, id), ...(batchSize ? { batchSize } : {}) });
    return { counts: result.counts, errors: result.errors, postbacks: result.postbacks };
  };
}
