import type { PostbackDeliveryView } from '@funnel/contracts';

/**
 * The postbacks of one job, event-sourced per account and job
 * (`reportingpostbacks-<accountId>.<jobId>`): queued (or recorded) when the job applied its rows,
 * then one event per delivery attempt.
 */
export const PostbackEventTypes = {
  queued: 'ReportingPostbacksQueued',
  attempted: 'ReportingPostbackAttempted',
} as const;

export interface QueuedPostback {
  deliveryId: string;
  hitId: string;
  /** Masked: what the listing shows. */
  url: string;
  action: 'call' | 'record';
}

export type PostbackEvent =
  | { type: typeof PostbackEventTypes.queued; data: { postbacks: QueuedPostback[] } }
  | {
      type: typeof PostbackEventTypes.attempted;
      data: { deliveryId: string; attempt: number; outcome: 'delivered' | 'retrying' | 'failed'; error: string | null };
    };

export const postbackStream = (accountId: string, jobId: string) => `reportingpostbacks-${accountId}.${jobId}`;

interface Entry extends PostbackDeliveryView {
  deliveryId: string;
}

/** The job's postbacks in the order they were decided; a delivery queued twice (a redelivered job) is listed once. */
export function foldPostbacks(events: readonly PostbackEvent[]): PostbackDeliveryView[] {
  const byId = new Map<string, Entry>();
  for (const event of events) {
    if (event.type === PostbackEventTypes.queued) {
      for (const p of event.data.postbacks) {
        if (byId.has(p.deliveryId)) continue;
        byId.set(p.deliveryId, {
          deliveryId: p.deliveryId,
          hitId: p.hitId,
          url: p.url,
          status: p.action === 'call' ? 'queued' : 'recorded',
          attempts: 0,
          lastError: null,
        });
      }
    } else {
      const entry = byId.get(event.data.deliveryId);
      if (!entry || entry.status === 'delivered') continue;
      entry.attempts = Math.max(entry.attempts, event.data.attempt);
      entry.status = event.data.outcome === 'retrying' ? 'queued' : event.data.outcome;
      entry.lastError = event.data.error;
    }
  }
  return [...byId.values()].map(({ deliveryId: _, ...view }) => view);
}
