import type { HitStore } from '../hits/hit-store';
import { applyReportingJob } from '../apply/apply-job';
import type { ApplyUpdate } from './reporting.tokens';
import { FunnelPostbackLookup, TrafficSourceLookup, cachedPerJob } from './traffic-sources';

export interface ApplyUpdateDeps {
  hits: HitStore;
  sources: TrafficSourceLookup;
  funnelPostbacks?: FunnelPostbackLookup;
  batchSize?: number;
}

/**
 * The appliers of each update type on the hit store, with traffic sources and funnels' postback
 * overrides read from assets-service (once per source, and per funnel and source, per job).
 */
export function applyReportingUpdate({ hits, sources, funnelPostbacks, batchSize }: ApplyUpdateDeps): ApplyUpdate {
  return async (job) => {
    const source = cachedPerJob(sources);
    const override = funnelPostbacks ? cachedPerJob(funnelPostbacks) : undefined;
    const result = await applyReportingJob(hits, job, {
      trafficSource: (id: string) => source(job.accountId, id),
      ...(override ? { funnelPostback: (idFunnel: string, idTrafficSource: string) => override(job.accountId, idFunnel, idTrafficSource) } : {}),
      ...(batchSize ? { batchSize } : {}),
    });
    return { counts: result.counts, errors: result.errors, postbacks: result.postbacks };
  };
}
