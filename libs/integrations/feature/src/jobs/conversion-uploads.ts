import type { ReadStore } from '@funnel/readstore';
import { integrationsCollection } from '../integrations/integrations.projector';
import { appliedConversionsOf, type IntegrationJobQueue } from './integration-jobs';
import { IntegrationSync } from './integration-sync.service';

/**
 * Reporting's listener of applied update jobs: the conversions a job added or replaced, queued for
 * upload (under an id of the job: a redelivery queues nothing new), only when the account has an
 * integration with a linked conversion goal (read from the integrations read model), so that
 * accounts without one queue nothing.
 */
export function conversionUploadsListener(readStore: ReadStore, queue: IntegrationJobQueue) {
  const integrations = integrationsCollection(readStore);
  return async (
    job: { jobId: string; type: string; accountId: string; queuedAt: string; payload: unknown },
    appliedRows?: readonly number[],
  ): Promise<void> => {
    const rows = appliedConversionsOf(job, appliedRows);
    if (!rows.length) return;
    const live = await integrations.find({ accountId: job.accountId, live: true }, { projection: { _id: 1, record: 1 } });
    if (!live.some((doc) => (doc.record?.goalLinks.length ?? 0) > 0)) return;
    await queue.enqueue([IntegrationSync.uploadJobOf({ jobId: job.jobId, accountId: job.accountId, rows })]);
  };
}
