import type { HitStore } from '../hits/hit-store';
import { applyConversions } from './apply-conversions';
import { applyCost } from './apply-cost';
import { applyCustomEvents } from './apply-custom-events';
import { applyReset } from './apply-reset';
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
export async function applyReportingJob(store: HitStore, job: ApplyJob<unknown> & { type: string }, deps: ApplyDeps): Promise<ApplyResult> {
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
