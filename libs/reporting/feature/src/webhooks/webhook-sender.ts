import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ASSETS_WEBHOOK_DELIVER_SUBJECT, ASSETS_WEBHOOK_TARGETS_SUBJECT, type WebhookDeliverAnswer, type WebhookTargetsAnswer } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import type { Hit } from '@funnel/reporting-domain';
import { HIT_STORE, type HitStore } from '../hits/hit-store';
import type { JobDelivery } from '../queue/job-queue';
import { QueueConsumer } from '../service/queue-consumer';
import { REPORTING_SETTINGS, type ReportingSettings } from '../service/reporting.tokens';
import { REPORTING_WEBHOOKS_QUEUE, type WebhookDeliveryPayload, type WebhookEventsPayload, type WebhookJobPayload, type WebhooksQueue } from './webhook-jobs';
import { WEBHOOK_LOG_STORE, type WebhookLogStore } from './webhook-log-store';
import { webhookDeliveryId, webhookPayload } from './webhook-payload';

export const REPORTING_ASSETS = Symbol.for('funnel.reporting.AssetsClient');

/** Attempts of a delivery before it is given up (the queue's maxAttempts). */
export const WEBHOOK_MAX_ATTEMPTS = 6;
/** How long reporting waits for assets-service's answer to one attempt: past the delivery's own 3 s bound. */
const DELIVER_WAIT_MS = 10_000;

/** A failed attempt: the queue retries it after its backoff. */
class AttemptFailed extends Error {}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Consumes the webhook queue (`REPORTING_WEBHOOKS`):
 * - an `event` job (events of one trigger) asks assets-service which configs each event goes to
 *   (once per funnel and node), builds each delivery's `webhook_outbound_payload_v1` body from the
 *   stored hit, and queues one `delivery` job per (event, config), its id the delivery id;
 * - a `delivery` job first reads the log: a delivery already delivered or given up is not sent
 *   again (a queue redelivery, the same event queued twice); otherwise assets-service signs and
 *   sends it with the config's secrets, and the attempt is logged before the job is acknowledged.
 *   A failure is retried by the queue's backoff; the last attempt is logged `failed`.
 */
@Injectable()
export class WebhookSender implements OnApplicationBootstrap {
  private readonly logger = new Logger('ReportingWebhooks');

  constructor(
    @Inject(REPORTING_WEBHOOKS_QUEUE) private readonly queue: WebhooksQueue,
    @Inject(WEBHOOK_LOG_STORE) private readonly log: WebhookLogStore,
    @Inject(HIT_STORE) private readonly hits: HitStore,
    @Inject(REPORTING_ASSETS) private readonly assets: ServiceClient,
    @Inject(REPORTING_SETTINGS) private readonly settings: ReportingSettings,
  ) {}

  private readonly consumer = new QueueConsumer(this.queue, this.settings);

  async onApplicationBootstrap(): Promise<void> {
    await this.consumer.start((delivery) => this.handle(delivery), {
      concurrency: this.settings.webhookConcurrency ?? 8,
      onError: (error, delivery) => this.logger.warn({ jobId: delivery?.job.jobId, err: messageOf(error) }, 'webhook job failed'),
    });
  }

  handle(delivery: JobDelivery<WebhookJobPayload>): Promise<void> {
    const payload = delivery.job.payload;
    return payload.kind === 'event' ? this.fanOut(delivery.job.accountId, payload) : this.deliver(delivery.job.accountId, payload, delivery.attempt);
  }

  private async fanOut(accountId: string, payload: WebhookEventsPayload): Promise<void> {
    const hits = new Map((await this.hits.getHits(accountId, [...new Set(payload.events.map((e) => e.hitId))])).map((hit) => [hit.hitId, hit]));
    const targets = new Map<string, Promise<WebhookTargetsAnswer>>();
    const targetsOf = (hit: Hit, idNode: string | undefined) => {
      const key = `${hit.idFunnel}\n${idNode ?? ''}`;
      let found = targets.get(key);
      if (!found) {
        found = this.assets.request<WebhookTargetsAnswer>(ASSETS_WEBHOOK_TARGETS_SUBJECT, {
          context: { accountId, userId: 'reporting-service', permissions: [], correlationId: `webhooks-${hit.hitId}` },
          body: { accountId, trigger: payload.trigger, idFunnel: hit.idFunnel, ...(idNode ? { idNode } : {}) },
        });
        targets.set(key, found);
      }
      return found;
    };
    const queuedAt = new Date().toISOString();
    const jobs = [];
    for (const event of payload.events) {
      const hit = hits.get(event.hitId);
      if (!hit || !hit.idFunnel) continue;
      const time = event.conversion?.time ?? event.customEvent?.time ?? hit.time;
      for (const target of (await targetsOf(hit, event.idNode)).targets) {
        const deliveryId = webhookDeliveryId(event.eventId, target.idWebhookConfig);
        const identity = { deliveryId, eventId: event.eventId, trigger: payload.trigger, idWebhookConfig: target.idWebhookConfig, idNode: target.idNode, time };
        jobs.push({
          jobId: deliveryId,
          type: 'delivery',
          accountId,
          queuedAt,
          payload: {
            kind: 'delivery',
            deliveryId,
            eventId: event.eventId,
            trigger: payload.trigger,
            idWebhookConfig: target.idWebhookConfig,
            idNode: target.idNode ?? '',
            idFunnel: hit.idFunnel,
            hitId: hit.hitId,
            body: webhookPayload(identity, hit, event),
          } satisfies WebhookDeliveryPayload,
        });
      }
    }
    if (jobs.length) await this.queue.enqueue(jobs);
  }

  private async deliver(accountId: string, job: WebhookDeliveryPayload, attempt: number): Promise<void> {
    if (await this.log.settled(accountId, job.deliveryId)) return;
    const answer = await this.assets.request<WebhookDeliverAnswer>(
      ASSETS_WEBHOOK_DELIVER_SUBJECT,
      {
        context: { accountId, userId: 'reporting-service', permissions: [], correlationId: job.deliveryId },
        body: { accountId, idWebhookConfig: job.idWebhookConfig, trigger: job.trigger, deliveryId: job.deliveryId, body: job.body },
      },
      { timeoutMs: DELIVER_WAIT_MS },
    );
    if (answer.skipped) {
      this.logger.log({ deliveryId: job.deliveryId, reason: answer.reason }, 'webhook delivery skipped');
      return;
    }
    const final = answer.delivered || attempt >= (this.settings.webhookMaxAttempts ?? WEBHOOK_MAX_ATTEMPTS) || isRefusal(answer.error);
    await this.log.attempted({
      accountId,
      deliveryId: job.deliveryId,
      eventId: job.eventId,
      trigger: job.trigger,
      idWebhookConfig: job.idWebhookConfig,
      idNode: job.idNode,
      idFunnel: job.idFunnel,
      hitId: job.hitId,
      attempt,
      outcome: answer.delivered ? 'delivered' : final ? 'failed' : 'retrying',
      httpStatus: answer.httpStatus,
      latencyMs: answer.responseTimeMs,
      error: answer.error,
      timeMs: Date.now(),
    });
    if (!final) throw new AttemptFailed(answer.error ?? 'not delivered');
  }
}

/** An address the SSRF rule refuses, or a URL it cannot use: retrying changes nothing. */
function isRefusal(error: string | null): boolean {
  return error !== null && (error.startsWith('address refused:') || error.startsWith('invalid URL:'));
}
