import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import {
  CallerContext,
  IntegrationErrorCodes,
  SYNC_MAX_WINDOW_DAYS,
  ServiceError,
  SyncIntegrationDto,
  SyncJobPartView,
  SyncJobView,
  TRACKING_FIELD_SLOTS,
  generateAssetId,
  validateBody,
} from '@funnel/contracts';
import { EVENT_STORE, EventStore, WrongExpectedRevisionError } from '@funnel/eventstore';
import type { Hit } from '@funnel/reporting-domain';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { KeyedSerial } from '@funnel/platform';
import {
  type AdPlatform,
  AdPlatformRegistry,
  type AdPlatformTokens,
  COST_SYNC_INTERVAL_MS,
  type ConversionToUpload,
  type GoalLink,
  type IntegrationRecord,
  costUpdatesOf,
  costWindowOf,
  derivedJobId,
  trailingWindow,
} from '@funnel/integrations-domain';
import { IntegrationsService } from '../integrations/integrations.service';
import { INTEGRATION_CLOCK, INTEGRATION_PLATFORMS } from '../integrations.tokens';
import {
  type AppliedConversion,
  type ConversionSyncPayload,
  type ConversionUploadPayload,
  type CostSyncPayload,
  type IntegrationJobDelivery,
  type IntegrationJobPayload,
  type IntegrationJobQueue,
  type IntegrationReporting,
} from './integration-jobs';
import { SyncJobs } from './sync-jobs.store';
import { UploadedConversions, uploadRecordRetentionMs } from './uploaded-conversions';
import { DeliveryLog, type DeliveryCall } from './delivery-log';

export const INTEGRATION_JOBS = Symbol.for('funnel.integrations.Jobs');

export interface IntegrationJobsSettings {
  queue: IntegrationJobQueue;
  reporting: IntegrationReporting;
  /** How often a replica looks whether the current 3-hour slot's cost sync was queued (default 60 s). */
  scheduleCheckMs?: number;
  /** Jobs handled at once (default 2). */
  concurrency?: number;
  /** The longest Retry-After waited out within one attempt (longer ones: the queue's backoff). Default 120 s. */
  maxRetryAfterSeconds?: number;
}

const DAY_MS = 86_400_000;
/** Hits read per page of an on-demand conversion sync (their conversions sent before the next page is read). */
const RESEND_PAGE_HITS = 1000;
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The two integration jobs on the durable REPORTING_INTEGRATIONS queue: cost sync (on demand and
 * every 3 hours for the trailing 3 days; the slot claimed once across replicas and restarts on the
 * event store) pulls spend per campaign and day and queues one reporting cost update per ad account
 * and day; conversion upload sends the conversions reporting applied on hits of a linked traffic
 * source to the linked goals, in the provider's batches. A rate limit waits out its Retry-After, a
 * 5xx retries with the queue's backoff, an expired or revoked token marks the integration
 * needs_reauth and stops there.
 */
@Injectable()
export class IntegrationSync implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('IntegrationJobs');
  private readonly jobs: SyncJobs;
  private readonly uploaded: UploadedConversions;
  private readonly deliveries: DeliveryLog;
  /** Conversion sends, one at a time per goal (see sendToGoals). */
  private readonly goalSends = new KeyedSerial();
  private timer?: NodeJS.Timeout;
  private started = false;

  constructor(
    private readonly integrations: IntegrationsService,
    @Inject(INTEGRATION_JOBS) private readonly settings: IntegrationJobsSettings,
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(READ_STORE) readStore: ReadStore,
    @Inject(INTEGRATION_CLOCK) private readonly clock: () => number,
    @Inject(INTEGRATION_PLATFORMS) platforms: AdPlatformRegistry,
  ) {
    this.jobs = new SyncJobs(readStore);
    this.uploaded = new UploadedConversions(eventStore, readStore, uploadRecordRetentionMs(platforms.all()), clock);
    this.deliveries = new DeliveryLog((entries) => this.settings.reporting.logDeliveries(entries), clock);
  }

  async onApplicationBootstrap(): Promise<void> {
    // A service app and its transport may both bootstrap the module: consume once.
    if (this.started) return;
    this.started = true;
    // What was uploaded is read before anything is sent: caught up first.
    await this.uploaded.start();
    await this.settings.queue.consume((delivery) => this.handle(delivery), {
      concurrency: this.settings.concurrency ?? 2,
      onExhausted: async ({ job, attempt }, error) => {
        this.logger.error({ jobId: job.jobId, err: messageOf(error) }, 'integration job failed on its last attempt');
        await this.finish(job.accountId, job.jobId, { status: 'failed', error: messageOf(error), attempts: attempt });
      },
      onError: (error) => this.logger.warn({ err: messageOf(error) }, 'integration job attempt failed'),
    });
    const every = this.settings.scheduleCheckMs ?? 60_000;
    this.timer = setInterval(() => void this.schedule().catch((error) => this.logger.warn({ err: messageOf(error) }, 'cost sync schedule failed')), every);
    this.timer.unref();
    void this.schedule().catch((error) => this.logger.warn({ err: messageOf(error) }, 'cost sync schedule failed'));
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.uploaded.stop();
  }

  /** POST /integrations/:id/sync: a job for the window, answered at once (202). */
  async request(context: CallerContext, idIntegration: unknown, body: unknown): Promise<{ jobId: string }> {
    const input = validateBody(SyncIntegrationDto, body);
    const start = Date.parse(input.timeStart);
    const end = Date.parse(input.timeEnd);
    if (!(end > start)) throw ServiceError.invalidField('timeEnd', 'isAfter', 'timeEnd must be after timeStart');
    if (end - start > SYNC_MAX_WINDOW_DAYS * DAY_MS)
      throw ServiceError.invalidField('timeEnd', 'maxWindow', `the window is at most ${SYNC_MAX_WINDOW_DAYS} days`);
    const record = await this.integrations.recordFor(context, idIntegration);
    const platform = this.integrations.platformFor(record);
    if (input.kind === 'conversions') this.checkConversionSync(record, platform, end);
    else this.checkCostSync(record, platform);
    const jobId = generateAssetId(this.clock());
    await this.queueSync(context.accountId, jobId, {
      kind: input.kind === 'conversions' ? 'conversionSync' : 'cost',
      idIntegration: record.idIntegration,
      timeStart: new Date(start).toISOString(),
      timeEnd: new Date(end).toISOString(),
      trigger: 'request',
    });
    return { jobId };
  }

  /** A cost sync needs the provider's cost sync and an ad account linked to a traffic source. */
  private checkCostSync(record: IntegrationRecord, platform: AdPlatform): void {
    if (!platform.capabilities.costSync) throw ServiceError.badRequest(IntegrationErrorCodes.SYNC_NOT_POSSIBLE, `${platform.name} has no cost sync`);
    if (!Object.keys(record.adAccountLinks).length)
      throw ServiceError.badRequest(IntegrationErrorCodes.SYNC_NOT_POSSIBLE, 'no ad account of this integration is linked to a traffic source');
  }

  /** GET /integrations/sync/:jobId. */
  async status(context: CallerContext, jobId: unknown): Promise<{ job: SyncJobView }> {
    const id = typeof jobId === 'string' ? jobId : '';
    const job = /^[0-9A-Za-z]{12}$/.test(id) ? await this.jobs.get(context.accountId, id) : null;
    if (!job) throw ServiceError.notFound(IntegrationErrorCodes.SYNC_JOB_NOT_FOUND, `no sync job ${id.slice(0, 64)} in this account`);
    return { job };
  }

  /** Reporting applied conversions (a conversions job): queued for upload, under an id of that job (queued twice, one job). */
  static uploadJobOf(reportingJob: { jobId: string; accountId: string; rows: AppliedConversion[] }) {
    const payload: ConversionUploadPayload = { kind: 'conversions', reportingJobId: reportingJob.jobId, rows: reportingJob.rows };
    return { jobId: `upload-${reportingJob.jobId}`, type: 'conversions', accountId: reportingJob.accountId, queuedAt: new Date().toISOString(), payload };
  }

  /**
   * The current 3-hour slot's cost sync: the first replica to claim the slot (an append that
   * expects no stream) queues one job per integration with linked ad accounts, for the trailing 3
   * days; a restart within the slot finds it claimed.
   */
  async schedule(): Promise<number> {
    const slot = Math.floor(this.clock() / COST_SYNC_INTERVAL_MS);
    try {
      await this.eventStore.append(
        `integrationsync-${slot}`,
        [{ type: 'CostSyncScheduled', data: { slot }, metadata: { occurredAt: new Date(this.clock()).toISOString(), schemaVersion: 1 } as never }],
        { expectedRevision: 'no_stream' },
      );
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) return 0;
      throw error;
    }
    const window = trailingWindow(this.clock());
    let queued = 0;
    for (const record of await this.integrations.liveRecords()) {
      if (record.status !== 'active' || !Object.keys(record.adAccountLinks).length) continue;
      if (!this.integrations.platformFor(record).capabilities.costSync) continue;
      const jobId = derivedJobId('schedule', String(slot), record.accountId, record.idIntegration);
      await this.queueSync(record.accountId, jobId, { kind: 'cost', idIntegration: record.idIntegration, ...window, trigger: 'schedule' });
      queued++;
    }
    this.logger.log({ msg: 'cost sync scheduled', slot, integrations: queued });
    return queued;
  }

  /**
   * A conversion sync (the window's conversions on the hits of the linked traffic sources sent to
   * the integration's goals again; the provider deduplicates by event id) needs the provider's
   * upload and a linked goal; a window wholly older than the provider takes is refused.
   */
  private checkConversionSync(record: IntegrationRecord, platform: AdPlatform, end: number): void {
    if (!platform.capabilities.conversionUpload)
      throw ServiceError.badRequest(IntegrationErrorCodes.SYNC_NOT_POSSIBLE, `${platform.name} has no conversion upload`);
    if (!record.goalLinks.length)
      throw ServiceError.badRequest(
        IntegrationErrorCodes.SYNC_NOT_POSSIBLE,
        "no conversion goal of this integration is linked to a traffic source's conversions",
      );
    const maxAgeDays = platform.capabilities.uploadMaxAgeDays;
    if (maxAgeDays !== null && end <= this.clock() - maxAgeDays * DAY_MS)
      throw ServiceError.badRequest(IntegrationErrorCodes.SYNC_NOT_POSSIBLE, `${platform.name} takes conversions at most ${maxAgeDays} days old`);
  }

  /**
   * Queues the job, then writes its status unless its first run already did: a status exists only
   * for a job on the durable queue, which runs it until it ends (a process that dies while it runs:
   * run again after the restart), so no status stays queued or running for good.
   */
  private async queueSync(accountId: string, jobId: string, payload: CostSyncPayload | ConversionSyncPayload): Promise<void> {
    const queuedAt = new Date(this.clock()).toISOString();
    await this.settings.queue.enqueue([{ jobId, type: payload.kind === 'cost' ? 'cost' : 'conversions', accountId, queuedAt, payload }]);
    await this.jobs.create(accountId, this.initial(jobId, payload, queuedAt));
  }

  private initial(jobId: string, payload: IntegrationJobPayload, queuedAt: string, idIntegration = ''): SyncJobView {
    return payload.kind !== 'conversions'
      ? {
          jobId,
          idIntegration: payload.idIntegration,
          kind: payload.kind === 'cost' ? 'cost' : 'conversions',
          trigger: payload.trigger,
          timeStart: payload.timeStart,
          timeEnd: payload.timeEnd,
          status: 'queued',
          attempts: 0,
          queuedAt,
          finishedAt: null,
          error: null,
          parts: [],
        }
      : {
          jobId,
          idIntegration,
          kind: 'conversions',
          trigger: 'conversions',
          timeStart: queuedAt,
          timeEnd: queuedAt,
          status: 'queued',
          attempts: 0,
          queuedAt,
          finishedAt: null,
          error: null,
          parts: [],
        };
  }

  private async finish(accountId: string, jobId: string, change: Partial<SyncJobView>): Promise<void> {
    const existing = await this.jobs.get(accountId, jobId);
    if (!existing) return;
    await this.jobs.put(accountId, { ...existing, ...change, finishedAt: new Date(this.clock()).toISOString() });
  }

  async handle(delivery: IntegrationJobDelivery): Promise<void> {
    const { job, attempt } = delivery;
    if (job.payload.kind === 'cost') return this.syncCost(delivery, job.payload, attempt);
    if (job.payload.kind === 'conversionSync') return this.syncConversions(delivery, job.payload);
    return this.upload(delivery, job.payload);
  }

  /** One cost sync: per linked ad account, its days pulled and one reporting cost update queued per day. */
  private async syncCost(delivery: IntegrationJobDelivery, payload: CostSyncPayload, attempt: number): Promise<void> {
    const { accountId, jobId, queuedAt } = delivery.job;
    const started = await this.jobs.update(
      accountId,
      jobId,
      (j) => ({ ...j, status: 'running', attempts: attempt }),
      () => this.initial(jobId, payload, queuedAt),
    );
    const record = await this.integrations.liveRecordOrNull(accountId, payload.idIntegration);
    if (!record) return this.finish(accountId, jobId, { status: 'failed', error: `integration ${payload.idIntegration} was deleted` });
    if (record.status === 'needs_reauth' || record.status === 'disconnected')
      return this.finish(accountId, jobId, { status: 'needs_reauth', error: record.lastError ?? 'the integration needs a reauthorization' });
    const parts: SyncJobPartView[] = [];
    const logged: DeliveryCall = { accountId, idIntegration: record.idIntegration, provider: record.provider, jobId, attempt };
    for (const [adAccountId, idTrafficSource] of Object.entries(record.adAccountLinks)) {
      if (payload.adAccountIds && !payload.adAccountIds.includes(adAccountId)) continue;
      const account = record.adAccounts.find((a) => a.id === adAccountId);
      const window = costWindowOf(payload.timeStart, payload.timeEnd, account?.timezone ?? 'UTC');
      let costs;
      try {
        costs = await this.call(delivery, record, (platform, tokens) => platform.pullCosts(tokens, adAccountId, window));
      } catch (error) {
        if (error instanceof ServiceError) await this.deliveries.costsFailed(logged, adAccountId, error);
        if (error instanceof ServiceError && error.code === IntegrationErrorCodes.NEEDS_REAUTH) {
          return this.finish(accountId, jobId, { status: 'needs_reauth', error: error.message, parts });
        }
        if (error instanceof ServiceError && error.status < 429) {
          parts.push({ adAccountId, costJobIds: [], rows: 0, rejected: 0, error: error.message });
          continue;
        }
        await this.jobs.put(accountId, { ...started, status: 'queued', error: messageOf(error), parts });
        throw error;
      }
      const costJobIds: string[] = [];
      const updates = costUpdatesOf(costs, idTrafficSource, window.timezone);
      for (const [index, { day, update }] of updates.entries()) {
        // The same sync job, ad account, day and content: the same reporting job (a redelivery queues nothing new).
        const costJobId = derivedJobId(jobId, adAccountId, day, String(index), JSON.stringify(update.segments));
        await this.settings.reporting.enqueueCost(accountId, costJobId, update);
        costJobIds.push(costJobId);
      }
      await this.deliveries.costsApplied(
        logged,
        adAccountId,
        costs,
        updates.map((u, i) => ({ ...u, costJobId: costJobIds[i] })),
      );
      parts.push({ adAccountId, costJobIds, rows: costs.length, rejected: 0, error: null });
      this.logger.log({ msg: 'costs pulled', accountId, idIntegration: record.idIntegration, adAccountId, rows: costs.length, costJobs: costJobIds.length });
    }
    await this.finish(accountId, jobId, { status: 'done', error: null, parts, attempts: attempt });
  }

  /**
   * The conversions a reporting job applied, uploaded to the goals linked to their hits' traffic
   * sources: the click id from the link's tracking field, the event id hit id + transaction id,
   * the provider's batch size and age bound.
   */
  private async upload(delivery: IntegrationJobDelivery, payload: ConversionUploadPayload): Promise<void> {
    const { accountId, jobId, queuedAt } = delivery.job;
    const records = (await this.integrations.liveRecords(accountId)).filter((r) => r.goalLinks.length > 0);
    if (!records.length || !payload.rows.length) return;
    const hits = await this.hitsOf(accountId, payload.rows);
    for (const record of records) {
      const uploadJobId = derivedJobId(jobId, record.idIntegration);
      const sent = await this.sendToGoals(delivery, record, uploadJobId, payload.reportingJobId, payload.rows, hits, { skipSent: true }, async () => {
        if (!(await this.jobs.get(accountId, uploadJobId)))
          await this.jobs.put(accountId, { ...this.initial(uploadJobId, payload, queuedAt, record.idIntegration), status: 'running' });
      });
      if (sent.parts.length)
        await this.finish(accountId, uploadJobId, { status: sent.status, error: sent.error, parts: sent.parts, attempts: delivery.attempt });
    }
  }

  /**
   * On demand: the conversions whose own time is in the window on the hits of the integration's
   * linked traffic sources (a reporting query over the warehouse), sent to its goals again a page
   * of hits at a time, under the job's own id; the provider deduplicates by event id. A 429 or 5xx
   * leaves the job queued for the queue's retry, which starts the window again.
   */
  private async syncConversions(delivery: IntegrationJobDelivery, payload: ConversionSyncPayload): Promise<void> {
    const { accountId, jobId, queuedAt } = delivery.job;
    const attempt = delivery.attempt;
    const started = await this.jobs.update(
      accountId,
      jobId,
      (j) => ({ ...j, status: 'running', attempts: attempt, parts: [] }),
      () => this.initial(jobId, payload, queuedAt),
    );
    const record = await this.integrations.liveRecordOrNull(accountId, payload.idIntegration);
    if (!record) return this.finish(accountId, jobId, { status: 'failed', error: `integration ${payload.idIntegration} was deleted` });
    if (record.status === 'needs_reauth' || record.status === 'disconnected')
      return this.finish(accountId, jobId, { status: 'needs_reauth', error: record.lastError ?? 'the integration needs a reauthorization' });
    const parts = new Map<string, SyncJobPartView>();
    const query = {
      accountId,
      trafficSourceIds: [...new Set(record.goalLinks.map((link) => link.idTrafficSource))],
      startMs: Date.parse(payload.timeStart),
      endMs: Date.parse(payload.timeEnd),
      limit: RESEND_PAGE_HITS,
    };
    let after: { timeMs: number; hitId: string } | undefined;
    try {
      do {
        const page = await this.settings.reporting.conversionsIn({ ...query, after });
        if (page.conversions.length) {
          const hits = await this.hitsOf(accountId, page.conversions);
          const sent = await this.sendToGoals(delivery, record, jobId, '', page.conversions, hits, { skipSent: false }, async () => undefined);
          for (const part of sent.parts) {
            const sum = parts.get(part.adAccountId);
            parts.set(
              part.adAccountId,
              sum ? { ...sum, rows: sum.rows + part.rows, rejected: sum.rejected + part.rejected, error: part.error ?? sum.error } : part,
            );
          }
          if (sent.status === 'needs_reauth') return this.finish(accountId, jobId, { status: 'needs_reauth', error: sent.error, parts: [...parts.values()] });
          await this.jobs.put(accountId, { ...started, parts: [...parts.values()] });
        }
        after = page.next ?? undefined;
      } while (after);
    } catch (error) {
      await this.jobs.put(accountId, { ...started, status: 'queued', error: messageOf(error), parts: [...parts.values()] });
      throw error;
    }
    await this.finish(accountId, jobId, { status: 'done', error: null, parts: [...parts.values()], attempts: attempt });
  }

  /** The hits of the rows, by id. */
  private async hitsOf(accountId: string, rows: readonly AppliedConversion[]) {
    return new Map((await this.settings.reporting.hits(accountId, [...new Set(rows.map((r) => r.hitId))])).map((hit) => [hit.hitId, hit]));
  }

  /**
   * `rows` sent to the record's goals, each the rows on hits of its linked traffic source, in the
   * provider's batches, logged as each batch ends: one part per goal that had any. `starting` runs
   * before a goal's first call. An expired or revoked token ends it (`needs_reauth`); a request the
   * provider refuses is its part's error; a 429 or 5xx throws (the queue retries; batches already
   * sent are deduplicated by the provider by event id).
   */
  private async sendToGoals(
    delivery: IntegrationJobDelivery,
    record: IntegrationRecord,
    statusJobId: string,
    reportingJobId: string,
    rows: readonly AppliedConversion[],
    hits: Map<string, Hit>,
    options: { skipSent: boolean },
    starting: () => Promise<void>,
  ): Promise<{ parts: SyncJobPartView[]; status: SyncJobView['status']; error: string | null }> {
    const accountId = record.accountId;
    const platform = this.integrations.platformFor(record);
    const parts: SyncJobPartView[] = [];
    // Set inside the goal's serial step (a closure), so not narrowed to its first value.
    let status = 'done' as SyncJobView['status'];
    let failure: string | null = null;
    if (!platform.capabilities.conversionUpload) return { parts, status, error: failure };
    for (const link of record.goalLinks) {
      // Stopped at the first refused token: no further call until it is reauthorized.
      if (status === 'needs_reauth') continue;
      // Values in the ad account's currency, as cost sync takes its spend.
      const currency = record.adAccounts.find((a) => a.id === link.adAccountId)?.currency || null;
      const applied = (await this.conversionsFor(accountId, link, rows, hits, platform.capabilities.uploadMaxAgeDays)).map((c) => ({
        ...c,
        currency: c.value === null ? null : currency,
      }));
      // Each conversion reaches a goal once: those a try of this job, or an earlier job, sent are left out
      // (an on-demand sync sends its window again: the provider keeps each once by its event id). The
      // check, the sends and their records run as one step per goal in this process, so two jobs of
      // the same conversion (an update applied twice in quick succession) do not both find it unsent.
      await this.goalSends.run(`${accountId}/${record.idIntegration}/${link.adAccountId}/${link.goalId}`, async () => {
        const sent =
          options.skipSent && applied.length
            ? await this.uploaded.sent(
                accountId,
                record.idIntegration,
                link,
                applied.map(({ eventId, occurredAt }) => ({ eventId, occurredAt })),
              )
            : new Set<string>();
        const conversions = applied.filter((c) => !sent.has(c.eventId));
        if (!conversions.length) return;
        await starting();
        const part: SyncJobPartView = { adAccountId: link.adAccountId, costJobIds: [], rows: 0, rejected: 0, error: null };
        const limit = Math.max(1, platform.capabilities.uploadBatchLimit);
        const logged: DeliveryCall = {
          accountId,
          idIntegration: record.idIntegration,
          provider: record.provider,
          jobId: statusJobId,
          attempt: delivery.attempt,
        };
        let batch: ConversionToUpload[] = [];
        try {
          for (let i = 0; i < conversions.length; i += limit) {
            batch = conversions.slice(i, i + limit);
            const outcome = await this.call(delivery, record, (p, tokens) =>
              p.uploadConversions(tokens, { adAccountId: link.adAccountId, goalId: link.goalId, eventName: link.eventName }, batch),
            );
            part.rows += outcome.accepted;
            part.rejected += outcome.rejected.length;
            await this.uploaded.record({
              accountId,
              idIntegration: record.idIntegration,
              adAccountId: link.adAccountId,
              goalId: link.goalId,
              conversions: batch.map(({ eventId, occurredAt }) => ({ eventId, occurredAt })),
              accepted: outcome.accepted,
              rejected: outcome.rejected.length,
              uploadedAt: new Date(this.clock()).toISOString(),
            });
            await this.deliveries.conversionsSent(logged, link, reportingJobId, batch, outcome);
          }
        } catch (error) {
          if (error instanceof ServiceError) await this.deliveries.conversionsFailed(logged, link, reportingJobId, batch, error);
          if (error instanceof ServiceError && error.code === IntegrationErrorCodes.NEEDS_REAUTH) {
            status = 'needs_reauth';
            failure = error.message;
            part.error = error.message;
          } else if (error instanceof ServiceError && error.status < 429) {
            part.error = error.message;
          } else {
            // Retried with the queue's backoff: the batches sent before the failure are recorded, so not sent again.
            throw error;
          }
        }
        parts.push(part);
      });
    }
    return { parts, status, error: failure };
  }

  private async conversionsFor(
    accountId: string,
    link: GoalLink,
    rows: readonly AppliedConversion[],
    hits: Map<string, Hit>,
    maxAgeDays: number | null,
  ): Promise<ConversionToUpload[]> {
    const slot = TRACKING_FIELD_SLOTS.includes(link.clickIdField)
      ? link.clickIdField
      : await this.slotNamed(accountId, link.idTrafficSource, link.clickIdField);
    const oldest = maxAgeDays === null ? -Infinity : this.clock() - maxAgeDays * DAY_MS;
    // By event id: a job naming one conversion twice sends it once.
    const out = new Map<string, ConversionToUpload>();
    for (const row of rows) {
      const hit = hits.get(row.hitId);
      if (!hit || hit.idTrafficSource !== link.idTrafficSource || !slot) continue;
      // The conversion as the hit holds it now (its time as applied; gone when removed since).
      const conversion = hit.conversions.find((c) => c.transactionId === row.transactionId);
      const clickId = hit.trackingFields[slot];
      if (!conversion || !clickId || Date.parse(conversion.time) < oldest) continue;
      const value = Number(conversion.payout);
      const eventId = `${row.hitId}${row.transactionId ? `:${row.transactionId}` : ''}`;
      out.set(eventId, {
        eventId,
        clickId,
        clickedAt: hit.time,
        occurredAt: conversion.time,
        clientIp: hit.ip || null,
        externalId: hit.visitorId || null,
        value: Number.isFinite(value) ? value : null,
        currency: null,
      });
    }
    return [...out.values()];
  }

  /** The slot of the traffic source's tracking field named `name` (gclid, fbclid ...), or null. */
  private async slotNamed(accountId: string, idTrafficSource: string, name: string): Promise<string | null> {
    const names = await this.integrations.trackingFieldNames(accountId, idTrafficSource);
    return Object.entries(names).find(([, field]) => field.toLowerCase() === name.toLowerCase())?.[0] ?? null;
  }

  /** A provider call of a job: a rate limit with a Retry-After is waited out (lease kept alive) and tried again, up to 3 times. */
  private async call<T>(
    delivery: IntegrationJobDelivery,
    record: IntegrationRecord,
    call: (platform: AdPlatform, tokens: AdPlatformTokens) => Promise<T>,
  ): Promise<T> {
    const max = this.settings.maxRetryAfterSeconds ?? 120;
    for (let tries = 0; ; tries++) {
      try {
        return await this.integrations.callAsJob(record.accountId, record.idIntegration, delivery.job.jobId, call);
      } catch (error) {
        const retryAfter = error instanceof ServiceError && error.status === 429 ? error.retryAfterSeconds : undefined;
        if (retryAfter === undefined || retryAfter > max || tries >= 3) throw error;
        this.logger.warn({ jobId: delivery.job.jobId, retryAfter }, 'provider rate limit: waiting its Retry-After');
        await delivery.wait(sleep(retryAfter * 1000));
      }
    }
  }
}
