import { type IncomingPostback, type IncomingPostbackAccepted, ReportingSubjects } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';

/**
 * Hands incoming postbacks (a network's `/pb/`, an `isConversion` action) to reporting, which
 * answers once the postback is durable (queued and logged). Rejects when it could not be kept.
 */
export interface PostbackRelay {
  hand(postback: IncomingPostback): Promise<IncomingPostbackAccepted>;
}

/** Over the service bus: `reporting.internal.postback` (NATS as tracking-edge, or standalone's in-process bus). */
export function busPostbackRelay(client: Pick<ServiceClient, 'request'>): PostbackRelay {
  return {
    hand: (postback) =>
      client.request<IncomingPostbackAccepted>(ReportingSubjects.postbackIn, {
        context: { accountId: postback.accountId, userId: 'tracking-edge', permissions: [], correlationId: `edge-pb-${postback.hitId.slice(0, 64)}` },
        body: postback,
      }),
  };
}
