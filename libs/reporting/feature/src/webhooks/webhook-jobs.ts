import type { WebhookTrigger } from '@funnel/contracts';
import type { JobQueue } from '../queue/job-queue';
import type { WebhookEventDetail } from './webhook-payload';

/** One event: a webhook node passed (`hitId` is the event), or a conversion or custom event row applied to `hitId`. */
export interface WebhookEvent extends WebhookEventDetail {
  eventId: string;
  hitId: string;
  /** node_execution: the webhook node. */
  idNode?: string;
}

/** Events of one trigger and account, fanned out to their configs (job type `event`). */
export interface WebhookEventsPayload {
  kind: 'event';
  trigger: WebhookTrigger;
  events: WebhookEvent[];
}

/** One delivery of one event to one config (job type `delivery`; job id = deliveryId). */
export interface WebhookDeliveryPayload {
  kind: 'delivery';
  deliveryId: string;
  eventId: string;
  trigger: WebhookTrigger;
  idWebhookConfig: string;
  idNode: string;
  idFunnel: string;
  hitId: string;
  body: Record<string, unknown>;
}

export type WebhookJobPayload = WebhookEventsPayload | WebhookDeliveryPayload;
export type WebhooksQueue = JobQueue<WebhookJobPayload>;

export const REPORTING_WEBHOOKS_QUEUE = Symbol.for('funnel.reporting.WebhooksQueue');
