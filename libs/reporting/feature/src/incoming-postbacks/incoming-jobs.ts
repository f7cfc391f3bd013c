import type { ConversionsUpdate } from '@funnel/contracts';
import type { JobEnvelope } from '../queue/job-queue';
import type { AppliedJob, UpdatePayload } from '../service/reporting.tokens';
import type { IncomingLogEntry } from './incoming-log-store';

/** A one-row conversions job of an incoming postback: the update, and the log row it resolves once applied. */
export type IncomingConversionsPayload = ConversionsUpdate & { incoming: IncomingLogEntry };

/** The postback's log row when the job is one of an incoming postback, else undefined. */
export function incomingEntryOf(job: JobEnvelope<UpdatePayload>): IncomingLogEntry | undefined {
  if (job.type !== 'conversions') return undefined;
  const entry = (job.payload as Partial<IncomingConversionsPayload>).incoming;
  return entry && typeof entry === 'object' && typeof entry.postbackId === 'string' ? entry : undefined;
}

/** The outcome of an applied one-row job (a removal is `removed`; nothing changed is `duplicate`). */
export function outcomeOf(entry: IncomingLogEntry, result: AppliedJob): Pick<IncomingLogEntry, 'outcome' | 'reason'> {
  const { counts, errors } = result;
  if (counts.applied > 0) return { outcome: entry.payout === '-1' ? 'removed' : 'applied', reason: null };
  if (counts.noop > 0) return { outcome: 'duplicate', reason: null };
  if (counts.notFound > 0) return { outcome: 'unknownHit', reason: null };
  return { outcome: 'failed', reason: errors[0]?.message ?? 'the conversion could not be applied' };
}
