import { INTEGRATION_DELIVERY_LOG_LIMITS, type IntegrationDeliveryStatus } from '@funnel/contracts';
import { spendText, type CampaignDayCost, type ConversionToUpload, type DayCostUpdate, type UploadOutcome } from '@funnel/integrations-domain';
import type { IntegrationDeliveryEntry } from '@funnel/reporting-feature';

/** The job a provider call belongs to: its integration, the sync job (as GET /integrations/sync/:jobId shows it) and the attempt. */
export interface DeliveryCall {
  accountId: string;
  idIntegration: string;
  provider: string;
  jobId: string;
  attempt: number;
}

/** A day's cost update of a pull and the reporting job it was queued as. */
export interface QueuedCostUpdate extends DayCostUpdate {
  costJobId: string;
}

const SECRET_FIELD = /("?\b(?:access_token|refresh_token|id_token|client_secret|code_verifier|password|token)"?\s*[:=]\s*"?)[^"&\s,}]+/gi;
const BEARER = /\b(Bearer|OAuth)\s+[A-Za-z0-9._~+/=-]+/g;

/**
 * A provider's answer or an error as the log keeps it: text, cut to INTEGRATION_DELIVERY_LOG_LIMITS.answerMax
 * characters, with anything shaped like a credential (a token field, a bearer header) blanked. The
 * adapters' answers and errors hold no token; this keeps it so should one echo a request.
 */
export function answerText(answer: unknown): string | null {
  if (answer === undefined || answer === null) return null;
  const text = typeof answer === 'string' ? answer : answer instanceof Error ? answer.message : JSON.stringify(answer);
  return text.replace(SECRET_FIELD, '$1[redacted]').replace(BEARER, '$1 [redacted]').slice(0, INTEGRATION_DELIVERY_LOG_LIMITS.answerMax);
}

/** The hit and transaction of an event id (`<hitId>:<transactionId>`, or the hit id alone: hit ids hold no `:`). */
function eventParts(eventId: string): { hitId: string; transactionId: string } {
  const at = eventId.indexOf(':');
  return at < 0 ? { hitId: eventId, transactionId: '' } : { hitId: eventId.slice(0, at), transactionId: eventId.slice(at + 1) };
}

/**
 * The integration deliveries log as the jobs write it (POST /reporting/logs/integrationdeliveries):
 * one row per cost row pulled and per conversion sent, written when the call ends, with the
 * provider's answer or the reason it failed.
 */
export class DeliveryLog {
  constructor(
    private readonly write: (entries: readonly IntegrationDeliveryEntry[]) => Promise<void>,
    private readonly clock: () => number,
  ) {}

  /** An ad account's pulled cost rows, `applied` each into the reporting cost job of its day and campaign. */
  costsApplied(call: DeliveryCall, adAccountId: string, costs: readonly CampaignDayCost[], updates: readonly QueuedCostUpdate[]): Promise<void> {
    const jobOf = new Map<string, string>();
    for (const { day, update, costJobId } of updates) {
      for (const segment of update.segments) for (const field of segment.restrictToTrackingFields ?? []) jobOf.set(`${day}\n${field.value}`, costJobId);
    }
    return this.write(
      costs.map((row) => ({
        ...this.base(call, 'cost', adAccountId, '', jobOf.get(`${row.day}\n${row.campaignId}`) ?? ''),
        cost: { campaignId: row.campaignId, day: row.day, spend: spendText(row.spend), currency: row.currency },
        conversion: null,
        status: 'applied',
        answer: null,
      })),
    );
  }

  /** Pulling an ad account's spend failed: one `failed` row without a cost row. */
  costsFailed(call: DeliveryCall, adAccountId: string, error: unknown): Promise<void> {
    return this.write([{ ...this.base(call, 'cost', adAccountId, '', ''), cost: null, conversion: null, status: 'failed', answer: answerText(error) }]);
  }

  /** A batch sent to a goal: each conversion `accepted`, or `rejected` with the provider's reason. */
  conversionsSent(
    call: DeliveryCall,
    goal: { adAccountId: string; goalId: string },
    reportingJobId: string,
    batch: readonly ConversionToUpload[],
    outcome: UploadOutcome,
  ): Promise<void> {
    const refused = new Map(outcome.rejected.map((r) => [r.eventId, r.reason]));
    const answer = answerText(outcome.answer);
    return this.write(
      batch.map((conversion) => {
        const reason = refused.get(conversion.eventId);
        return this.conversionRow(
          call,
          goal,
          reportingJobId,
          conversion,
          reason === undefined ? 'accepted' : 'rejected',
          reason === undefined ? answer : answerText(reason),
        );
      }),
    );
  }

  /** A batch whose call failed: each conversion `failed` with the reason. */
  conversionsFailed(
    call: DeliveryCall,
    goal: { adAccountId: string; goalId: string },
    reportingJobId: string,
    batch: readonly ConversionToUpload[],
    error: unknown,
  ): Promise<void> {
    const reason = answerText(error);
    return this.write(batch.map((conversion) => this.conversionRow(call, goal, reportingJobId, conversion, 'failed', reason)));
  }

  private conversionRow(
    call: DeliveryCall,
    goal: { adAccountId: string; goalId: string },
    reportingJobId: string,
    conversion: ConversionToUpload,
    status: IntegrationDeliveryStatus,
    answer: string | null,
  ): IntegrationDeliveryEntry {
    return {
      ...this.base(call, 'conversions', goal.adAccountId, goal.goalId, reportingJobId),
      cost: null,
      conversion: { eventId: conversion.eventId, ...eventParts(conversion.eventId), value: conversion.value === null ? '' : String(conversion.value) },
      status,
      answer,
    };
  }

  private base(call: DeliveryCall, kind: IntegrationDeliveryEntry['kind'], adAccountId: string, goalId: string, reportingJobId: string) {
    return {
      accountId: call.accountId,
      timeMs: this.clock(),
      idIntegration: call.idIntegration,
      provider: call.provider,
      jobId: call.jobId,
      attempt: call.attempt,
      kind,
      adAccountId,
      goalId,
      reportingJobId,
    };
  }
}
