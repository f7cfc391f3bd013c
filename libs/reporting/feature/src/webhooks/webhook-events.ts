import { createHash } from 'node:crypto';
import type { ConversionsUpdate, CustomEventsUpdate } from '@funnel/contracts';
import { parseHit } from '@funnel/reporting-domain';
import type { IngestHitsResult } from '../hits/ingest-hits';
import type { JobEnvelope } from '../queue/job-queue';
import type { WebhookEvent, WebhookJobPayload, WebhooksQueue } from './webhook-jobs';

/** Events per `event` job at most. */
const EVENTS_PER_JOB = 1000;

/**
 * `node_execution` events of ingested hits: each hit of a webhook node (`nodeType: webhook`) is one
 * event, its id the hit id. Jobs per account, ids from their events (the same hits give the same
 * job, which the queue drops within its dedupe window; past it, the deliveries' log check sends
 * nothing twice).
 */
export function nodeExecutionJobs(inputs: readonly unknown[], queuedAt: string): JobEnvelope<WebhookJobPayload>[] {
  const byAccount = new Map<string, WebhookEvent[]>();
  for (const input of inputs) {
    if ((input as { nodeType?: unknown } | null)?.nodeType !== 'webhook') continue;
    const parsed = parseHit(input);
    if (!parsed.ok) continue;
    const hit = parsed.value;
    const events = byAccount.get(hit.accountId) ?? [];
    events.push({ eventId: hit.hitId, hitId: hit.hitId, idNode: hit.idNode });
    byAccount.set(hit.accountId, events);
  }
  const jobs: JobEnvelope<WebhookJobPayload>[] = [];
  for (const [accountId, events] of byAccount) {
    for (let i = 0; i < events.length; i += EVENTS_PER_JOB) {
      const slice = events.slice(i, i + EVENTS_PER_JOB);
      jobs.push({
        jobId: `node-${digest(slice.map((e) => e.eventId))}`,
        type: 'event',
        accountId,
        queuedAt,
        payload: { kind: 'event', trigger: 'node_execution', events: slice },
      });
    }
  }
  return jobs;
}

/**
 * The hits' ingest, then their `node_execution` events queued before it answers: the stream's hits
 * are acknowledged (the inbox's batches removed) only after both, so a crash in between ingests the
 * hits again (stored once) and queues their events again.
 */
export function withWebhookEvents(
  ingest: (inputs: unknown[]) => Promise<IngestHitsResult>,
  queue: WebhooksQueue,
): (inputs: unknown[]) => Promise<IngestHitsResult> {
  return async (inputs) => {
    const result = await ingest(inputs);
    const jobs = nodeExecutionJobs(inputs, new Date().toISOString());
    if (jobs.length) await queue.enqueue(jobs);
    return result;
  };
}

/**
 * `conversion_triggered` / `custom_event_triggered` events of an applied update job: each row that
 * changed its hit (`appliedRows`: a noop row, such as a conversion stored already, an unknown hit
 * or a failed row fires nothing) by adding or replacing a conversion (not a removal, payout -1), or
 * by adding a custom event, is one event, its id `<jobId>:<rowIndex>`. Without `appliedRows` every
 * row is taken (rows of unknown hits are then dropped when the events fan out).
 */
export function updateEventJobs(job: JobEnvelope<unknown>, appliedRows?: readonly number[]): JobEnvelope<WebhookJobPayload>[] {
  const applied = appliedRows ? new Set(appliedRows) : undefined;
  const changed = (rowIndex: number) => applied === undefined || applied.has(rowIndex);
  const events: WebhookEvent[] = [];
  let trigger: 'conversion_triggered' | 'custom_event_triggered';
  if (job.type === 'conversions') {
    trigger = 'conversion_triggered';
    const update = job.payload as ConversionsUpdate;
    update.hits.forEach((row, rowIndex) => {
      if (String(row.payout) === '-1' || !changed(rowIndex)) return;
      const payout = update.overridePayout !== undefined && update.overridePayout !== null ? String(update.overridePayout) : String(row.payout);
      events.push({
        eventId: `${job.jobId}:${rowIndex}`,
        hitId: row.hitId,
        conversion: { transactionId: row.transactionId ?? '', payout, time: isoTime(row.time ?? job.queuedAt) },
      });
    });
  } else if (job.type === 'customevents') {
    trigger = 'custom_event_triggered';
    const update = job.payload as CustomEventsUpdate;
    update.hits.forEach((row, rowIndex) => {
      if (!changed(rowIndex)) return;
      events.push({
        eventId: `${job.jobId}:${rowIndex}`,
        hitId: row.hitId,
        customEvent: { eventNumber: row.eventNumber, count: row.count ?? 1, time: isoTime(row.time ?? job.queuedAt) },
      });
    });
  } else {
    return [];
  }
  const jobs: JobEnvelope<WebhookJobPayload>[] = [];
  for (let i = 0; i < events.length; i += EVENTS_PER_JOB) {
    jobs.push({
      jobId: `${trigger === 'conversion_triggered' ? 'conv' : 'ce'}-${job.jobId}-${i / EVENTS_PER_JOB}`,
      type: 'event',
      accountId: job.accountId,
      queuedAt: new Date().toISOString(),
      payload: { kind: 'event', trigger, events: events.slice(i, i + EVENTS_PER_JOB) },
    });
  }
  return jobs;
}

/** A row's time (validated RFC 3339, any offset) as the hits keep theirs: UTC with milliseconds. */
function isoTime(text: string): string {
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? text : time.toISOString();
}

function digest(ids: readonly string[]): string {
  return createHash('sha256').update(ids.join('\n')).digest('base64url').slice(0, 32);
}
