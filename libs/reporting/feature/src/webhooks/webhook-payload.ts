import { WEBHOOK_PAYLOAD_SCHEMA, type WebhookTrigger } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';

/** What a conversion or custom event adds to its event's payload. */
export interface WebhookEventDetail {
  conversion?: { transactionId: string; payout: string; time: string };
  customEvent?: { eventNumber: number; count: number; time: string };
}

/** The identity of one delivery: the event, its config and node, and when the event happened. */
export interface WebhookDeliveryIdentity {
  deliveryId: string;
  eventId: string;
  trigger: WebhookTrigger;
  idWebhookConfig: string;
  idNode: string | null;
  /** ISO 8601: the hit's time (node_execution), the conversion's or the custom event's. */
  time: string;
}

/**
 * The `webhook_outbound_payload_v1` body of a delivery, in the middleware request's naming
 * (snake_case groups): the event, the webhook config and node, then the hit's funnel, traffic
 * source, visitor, hit and tracking fields, and the conversion or custom event that triggered it.
 * The same on every attempt (receivers verify the signature of what they got and dedupe on the id).
 */
export function webhookPayload(identity: WebhookDeliveryIdentity, hit: Hit, detail: WebhookEventDetail = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    schema_version: WEBHOOK_PAYLOAD_SCHEMA,
    type: identity.trigger,
    event_type: identity.trigger,
    event_id: identity.eventId,
    request_id: identity.deliveryId,
    timestamp: identity.time,
    webhook: { id: identity.idWebhookConfig, node_id: identity.idNode },
    funnel: { id: hit.idFunnel, funnel_group_id: hit.idFunnelGroup, node_id: hit.idNode, node_type: hit.nodeType },
    traffic_source: { id: hit.idTrafficSource },
    visitor: {
      id: hit.visitorId,
      ip: hit.ip,
      country_code: hit.countryCode,
      ...Object.fromEntries(Object.entries(hit.visitor ?? {}).map(([key, value]) => [snake(key), value])),
      tags: hit.visitorTags ?? [],
    },
    hit: {
      id: hit.hitId,
      time: hit.time,
      node_id: hit.idNode,
      page_id: hit.idPage,
      offer_source_id: hit.idOfferSource,
      is_entrance: hit.isEntrance,
      cost: hit.cost,
      action: hit.action,
      previous_hit_id: hit.previousHitId,
    },
    tracking_fields: hit.trackingFields ?? {},
  };
  if (detail.conversion)
    body['conversion'] = { transaction_id: detail.conversion.transactionId, payout: detail.conversion.payout, time: detail.conversion.time };
  if (detail.customEvent)
    body['custom_event'] = { event_number: detail.customEvent.eventNumber, count: detail.customEvent.count, time: detail.customEvent.time };
  return body;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A delivery's id (its `webhook-id`): the event's id and the config's, so two configs of one event are two messages. */
export function webhookDeliveryId(eventId: string, idWebhookConfig: string): string {
  return `${eventId}.${idWebhookConfig}`;
}
