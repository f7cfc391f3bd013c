import type { HitStore } from '../hits/hit-store';
import { applyJobGroup, applyReportingJob, rowHitIdsOf } from '../apply/apply-job';
import type { ApplyDeps } from '../apply/apply-types';
import type { AppliedJob, ApplyUpdate, UpdateJob } from './reporting.tokens';
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
  const depsOf = (job: UpdateJob): ApplyDeps => {
    const source = cachedPerJob(sources);
    const override = funnelPostbacks ? cachedPerJob(funnelPostbacks) : undefined;
    return {
      trafficSource: (id: string) => source(job.accountId, id),
      ...(override ? { funnelPostback: (idFunnel: string, idTrafficSource: string) => override(job.accountId, idFunnel, idTrafficSource) } : {}),
      ...(batchSize ? { batchSize } : {}),
    };
  };
  const appliedJob = ({ counts, errors, postbacks, appliedRows }: AppliedJob): AppliedJob => ({ counts, errors, postbacks, appliedRows });
  const apply: ApplyUpdate = async (job) => appliedJob(await applyReportingJob(hits, job, depsOf(job)));
  apply.group = {
    rows: (job) => rowHitIdsOf(job)?.length,
    apply: async (jobs) => (await applyJobGroup(hits, jobs, (job) => depsOf(job as UpdateJob))).map(appliedJob),
  };
  return apply;
}
