import type { WebhookTrigger } from './webhook-config';

/**
 * Reporting's webhook deliveries ask assets-service, the holder of the secrets' key, over two
 * internal subjects (no gateway route; only reporting-service's NATS user may call them): which
 * configs an event goes to, and "send this payload to that config" (assets signs and sends it with
 * the config's secrets, which never leave assets-service).
 */
export const ASSETS_WEBHOOK_TARGETS_SUBJECT = 'assets.internal.webhooktargets';
export const ASSETS_WEBHOOK_DELIVER_SUBJECT = 'assets.internal.webhookdeliver';

/** The payload schema of every event delivery (its `schema_version`), named by the `X-Webhook-Schema` header. */
export const WEBHOOK_PAYLOAD_SCHEMA = 'webhook_outbound_payload_v1';
/** The headers a delivery names itself by, besides Standard Webhooks' `webhook-id`, `webhook-timestamp` and `webhook-signature`. */
export const WEBHOOK_SCHEMA_HEADER = 'x-webhook-schema';
export const WEBHOOK_TRIGGER_HEADER = 'x-webhook-trigger';
/** The delivery id (also the `webhook-id`). */
export const WEBHOOK_REQUEST_ID_HEADER = 'x-request-id';

/** `assets.internal.webhooktargets`: the configs an event of a funnel goes to. */
export interface WebhookTargetsRequest {
  accountId: string;
  trigger: WebhookTrigger;
  idFunnel: string;
  /** `node_execution`: the webhook node the visitor passed. */
  idNode?: string;
}

export interface WebhookTarget {
  idWebhookConfig: string;
  /** The funnel's webhook node naming the config, null for an `allFunnels` config no node names. */
  idNode: string | null;
}

/**
 * Enabled, active configs with a URL whose triggers hold the trigger: `node_execution`, the config
 * of that webhook node of the funnel; the others, the configs the funnel's webhook nodes name plus
 * the account's `allFunnels` configs, each once.
 */
export interface WebhookTargetsAnswer {
  targets: WebhookTarget[];
}

/** `assets.internal.webhookdeliver`: one attempt of one delivery. */
export interface WebhookDeliverRequest {
  accountId: string;
  idWebhookConfig: string;
  trigger: WebhookTrigger;
  /** The Standard Webhooks `webhook-id` (the same on every attempt, so receivers dedupe on it). */
  deliveryId: string;
  /** The `webhook_outbound_payload_v1` body, sent as is. */
  body: Record<string, unknown>;
}

/**
 * The attempt's outcome (`WebhookDeliveryResult`), or `skipped` with why when there was nothing to
 * send: the config is gone, deleted, archived, disabled, has no URL or no longer takes the trigger.
 */
export type WebhookDeliverAnswer =
  { skipped: false; delivered: boolean; httpStatus: number | null; responseTimeMs: number; error: string | null } | { skipped: true; reason: string };
