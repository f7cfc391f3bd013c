import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  type CallerContext,
  INCOMING_POSTBACK_LIMITS as LIMITS,
  INCOMING_POSTBACK_SOURCES,
  type IncomingPostback,
  type IncomingPostbackAccepted,
  PAGE_KIND,
  ServiceError,
  generateAssetId,
  isValidAssetId,
  parseConversionsUpdate,
} from '@funnel/contracts';
import { type ServiceClient, requestAssetRecord } from '@funnel/platform';
import { HIT_STORE, type HitStore } from '../hits/hit-store';
import type { JobEnvelope } from '../queue/job-queue';
import { type AppliedJob, REPORTING_UPDATES_QUEUE, type ReportingJobObserver, type UpdatePayload, type UpdatesQueue } from '../service/reporting.tokens';
import { IncomingIntake, IncomingOutcomes } from './incoming-batches';
import { INCOMING_LOG_STORE, type IncomingLogEntry, type IncomingLogStore } from './incoming-log-store';
import { type IncomingConversionsPayload, incomingEntryOf, outcomeOf } from './incoming-jobs';

export const INCOMING_ASSETS = Symbol.for('funnel.reporting.IncomingAssets');

const cut = (text: unknown, max: number) => (typeof text === 'string' ? text.slice(0, max) : '');

/**
 * Incoming postbacks (`reporting.internal.postback`): each becomes a one-row conversions job of its
 * account on the update queue (so it applies in the account's order, by the conversions update's
 * rules, the traffic source's postback decided with `postbackCalls: all`), then a row of the
 * incoming postback log; the answer comes once both are durable. Queue first, log second: a crash
 * between leaves a job whose row is written when it is applied, never a row without a job.
 * Concurrent postbacks share their writes (IncomingIntake: one enqueue and one log write for all the
 * postbacks that arrived while the previous write was under way), as do the outcomes written back
 * when their jobs are applied (IncomingOutcomes).
 *
 * - A revenue given is the conversion's payout (`-1` removes); without one the hit's offer payout
 *   is used, which needs the hit: a hit the account does not have is logged `unknownHit` at once.
 * - A hit id, transaction id or revenue the conversions update would refuse is logged `invalid`.
 * - Nothing here fails the caller for bad input (networks retry on errors): only a store that cannot
 *   keep the postback does.
 */
@Injectable()
export class IncomingPostbacks implements ReportingJobObserver, OnModuleDestroy {
  private readonly logger = new Logger('IncomingPostbacks');
  private readonly intake: IncomingIntake;
  private readonly outcomes: IncomingOutcomes;

  constructor(
    @Inject(REPORTING_UPDATES_QUEUE) queue: UpdatesQueue,
    @Inject(INCOMING_LOG_STORE) log: IncomingLogStore,
    @Inject(HIT_STORE) private readonly hits: HitStore,
    @Inject(INCOMING_ASSETS) private readonly assets: ServiceClient,
  ) {
    this.intake = new IncomingIntake(queue, log);
    this.outcomes = new IncomingOutcomes(log, hits);
  }

  /**
   * Writes the postbacks waiting, then refuses new ones (before the runtime closes the queue and the
   * log). Outcomes stay open: the jobs under way when the runtime closes the queue still write theirs.
   */
  async onModuleDestroy(): Promise<void> {
    await this.intake.close();
  }

  async receive(postback: IncomingPostback): Promise<IncomingPostbackAccepted> {
    if (typeof postback !== 'object' || postback === null || typeof postback.accountId !== 'string' || !isValidAssetId(postback.accountId)) {
      throw ServiceError.invalidField('accountId', 'isAssetId', 'an incoming postback names its account');
    }
    if (!INCOMING_POSTBACK_SOURCES.includes(postback.source))
      throw ServiceError.invalidField('source', 'isIn', `source is one of ${INCOMING_POSTBACK_SOURCES.join(', ')}`);
    const now = Date.now();
    const received = Date.parse(postback.receivedAt);
    const entry: IncomingLogEntry = {
      accountId: postback.accountId,
      postbackId: generateAssetId(),
      timeMs: Number.isFinite(received) ? received : now,
      source: postback.source,
      hitId: cut(postback.hitId, LIMITS.hitMax),
      transactionId: cut(postback.transactionId, LIMITS.transactionMax),
      revenue: cut(postback.revenue, LIMITS.revenueMax),
      payout: '',
      ip: cut(postback.ip, 64),
      outcome: 'queued',
      reason: null,
      jobId: null,
      idFunnel: '',
      idTrafficSource: '',
      updatedMs: now,
    };
    const refuse = async (reason: string) => this.final({ ...entry, outcome: 'invalid', reason: reason.slice(0, LIMITS.reasonMax) });
    if (entry.hitId === '') return refuse('no hit id (hit, clickid, cid or subid)');
    if (!isValidAssetId(entry.hitId)) return refuse(`hit ${JSON.stringify(entry.hitId)} is not a hit id of this service`);
    if (typeof postback.transactionId === 'string' && postback.transactionId.length > LIMITS.transactionMax)
      return refuse(`the transaction id is longer than ${LIMITS.transactionMax} characters`);
    let payout = entry.revenue;
    if (payout === '') {
      const [hit] = await this.hits.getHits(entry.accountId, [entry.hitId]);
      if (!hit) return this.final({ ...entry, outcome: 'unknownHit' });
      entry.idFunnel = hit.idFunnel;
      entry.idTrafficSource = hit.idTrafficSource;
      payout = await this.offerPayout(entry.accountId, hit.idPage);
    }
    let update;
    try {
      update = parseConversionsUpdate({ hits: [{ hitId: entry.hitId, payout, transactionId: entry.transactionId }], postbackCalls: 'all' });
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const details = error.details?.map((d) => d.message).join('; ');
      return refuse(details || error.message);
    }
    entry.payout = update.hits[0].payout;
    entry.jobId = generateAssetId();
    const payload: IncomingConversionsPayload = { ...update, incoming: entry };
    await this.intake.keep({
      entry,
      job: { jobId: entry.jobId, type: 'conversions', accountId: entry.accountId, queuedAt: new Date(now).toISOString(), payload },
    });
    return { postbackId: entry.postbackId, outcome: 'queued', jobId: entry.jobId };
  }

  /** A job applied: its postback's row gets the outcome, and the hit's funnel and source. */
  async applied(job: JobEnvelope<UpdatePayload>, result: AppliedJob): Promise<void> {
    const entry = incomingEntryOf(job);
    if (!entry) return;
    await this.outcomes.resolve({ ...entry, ...outcomeOf(entry, result), updatedMs: Date.now() });
  }

  /** A job whose every attempt failed: its postback's row says so. */
  async exhausted(job: JobEnvelope<UpdatePayload>, error: unknown): Promise<void> {
    const entry = incomingEntryOf(job);
    if (!entry) return;
    const reason = (error instanceof Error ? error.message : String(error)).slice(0, LIMITS.reasonMax);
    await this.outcomes.resolve({ ...entry, outcome: 'failed', reason, updatedMs: Date.now() });
  }

  private async final(entry: IncomingLogEntry): Promise<IncomingPostbackAccepted> {
    await this.intake.keep({ entry });
    if (entry.outcome === 'invalid') this.logger.debug?.(`incoming postback ${entry.postbackId} invalid: ${entry.reason}`);
    return { postbackId: entry.postbackId, outcome: entry.outcome, jobId: null };
  }

  /** The payout of the hit's page (an offer's `offerParams.payout`; "0" for a page without one, or none). */
  private async offerPayout(accountId: string, idPage: string): Promise<string> {
    if (!idPage) return '0';
    const context: CallerContext = { accountId, userId: 'reporting-service', permissions: ['assets:read'], correlationId: `reporting-pb-${idPage}` };
    try {
      const page = await requestAssetRecord<{ offerParams?: { payout?: number } }>(this.assets, PAGE_KIND, context, idPage);
      return decimalOf(page?.offerParams?.payout ?? 0);
    } catch (error) {
      if ((error as { status?: number })?.status === 404) return '0';
      throw error;
    }
  }
}

/** A JSON number with at most 6 decimals as decimal text (2.5 -> "2.5", 1e-6 -> "0.000001"). */
export function decimalOf(value: number): string {
  if (!Number.isFinite(value) || value < 0) return '0';
  return value.toFixed(6).replace(/\.?0+$/, '') || '0';
}
