import type { CostUpdate, SyncJobView } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import type { IntegrationDeliveryEntry, JobDelivery, JobQueue } from '@funnel/reporting-feature';
import type { WindowConversionsPage, WindowConversionsQuery } from '@funnel/reporting-queries-feature';

/** A cost sync of one integration's linked ad accounts (all of them, or `adAccountIds`) over [timeStart, timeEnd). */
export interface CostSyncPayload {
  kind: 'cost';
  idIntegration: string;
  adAccountIds?: string[];
  timeStart: string;
  timeEnd: string;
  trigger: SyncJobView['trigger'];
}

/** One conversion row applied by reporting (a conversions job's row). */
export interface AppliedConversion {
  hitId: string;
  transactionId: string;
  /** Decimal text. */
  payout: string;
  /** ISO 8601. */
  time: string;
}

/** Conversions applied by a reporting job, to upload to the goals linked to their hits' traffic sources. */
export interface ConversionUploadPayload {
  kind: 'conversions';
  /** The reporting job that applied them. */
  reportingJobId: string;
  rows: AppliedConversion[];
}

/** POST /integrations/:id/sync `kind: conversions`: the conversions of [timeStart, timeEnd) on the hits of the integration's linked traffic sources, sent to its goals again. */
export interface ConversionSyncPayload {
  kind: 'conversionSync';
  idIntegration: string;
  timeStart: string;
  timeEnd: string;
  trigger: 'request';
}

export type IntegrationJobPayload = CostSyncPayload | ConversionUploadPayload | ConversionSyncPayload;

/** The durable queue of integration jobs (REPORTING_INTEGRATIONS). */
export type IntegrationJobQueue = JobQueue<IntegrationJobPayload>;
export type IntegrationJobDelivery = JobDelivery<IntegrationJobPayload>;

/** What integrations need of reporting (same process): its cost update queue and its hits. */
export interface IntegrationReporting {
  /** Queues a cost update of the account under `jobId` (the same queue and rules as PUT /reporting/update/cost/). */
  enqueueCost(accountId: string, jobId: string, update: CostUpdate): Promise<void>;
  hits(accountId: string, hitIds: readonly string[]): Promise<Hit[]>;
  /** The conversions whose own time is in the window on the account's hits of the traffic sources (a reporting query), a page of hits at a time. */
  conversionsIn(query: WindowConversionsQuery): Promise<WindowConversionsPage>;
  /** Appends rows to the integration deliveries log (POST /reporting/logs/integrationdeliveries), in one write. */
  logDeliveries(entries: readonly IntegrationDeliveryEntry[]): Promise<void>;
}

/**
 * A conversions job's rows that added or replaced a conversion: those of `appliedRows` (the rows
 * that changed a hit; absent: every row), payout -1 (a removal) left out. A row applied again
 * without a change (the same conversion twice) is not among them.
 */
export function appliedConversionsOf(job: { type: string; queuedAt: string; payload: unknown }, appliedRows?: readonly number[]): AppliedConversion[] {
  if (job.type !== 'conversions') return [];
  const update = job.payload as { hits: { hitId: string; payout: unknown; transactionId?: string; time?: string }[]; overridePayout?: unknown };
  const applied = appliedRows ? new Set(appliedRows) : undefined;
  const rows: AppliedConversion[] = [];
  (update.hits ?? []).forEach((row, rowIndex) => {
    if (String(row.payout) === '-1' || (applied && !applied.has(rowIndex))) return;
    const payout = update.overridePayout !== undefined && update.overridePayout !== null ? String(update.overridePayout) : String(row.payout);
    rows.push({ hitId: row.hitId, transactionId: row.transactionId ?? '', payout, time: row.time ?? job.queuedAt });
  });
  return rows;
}
