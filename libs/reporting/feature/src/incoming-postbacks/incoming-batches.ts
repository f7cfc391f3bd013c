import { GroupCommit, type GroupCommitOptions } from '@funnel/platform';
import type { HitStore } from '../hits/hit-store';
import type { JobEnvelope } from '../queue/job-queue';
import type { UpdatePayload, UpdatesQueue } from '../service/reporting.tokens';
import type { IncomingLogEntry, IncomingLogStore } from './incoming-log-store';

/** A postback to keep: its log row, and its conversions job unless nothing is to be applied (`invalid`, `unknownHit`). */
export interface IncomingIntakeItem {
  entry: IncomingLogEntry;
  job?: JobEnvelope<UpdatePayload>;
}

/**
 * Writes of the incoming postback log and queue shared by concurrent callers (group commit): the
 * warehouse's write costs about the same for one row as for hundreds (DuckDB: milliseconds per
 * commit), so the postbacks arriving while a write is under way wait for the next one together.
 * Each caller resolves once the write holding its items is durable, and rejects with its error.
 */
export const INCOMING_BATCH_DEFAULTS: GroupCommitOptions = { maxItems: 512, maxWaitMs: 0, maxConcurrentWrites: 1, maxQueued: 20_000 };

/**
 * Intake: the jobs of the postbacks in one enqueue (one transaction of the queue), then their rows
 * in one `received` write of the log. Queue first, log second (a crash between leaves jobs whose rows
 * are written when they are applied, never a row without its job).
 */
export class IncomingIntake {
  private readonly group: GroupCommit<IncomingIntakeItem>;

  constructor(
    private readonly queue: UpdatesQueue,
    private readonly log: IncomingLogStore,
    options: GroupCommitOptions = INCOMING_BATCH_DEFAULTS,
  ) {
    this.group = new GroupCommit((items) => this.write(items), options);
  }

  /** Resolves once the postback's job (if any) is queued and its row logged. */
  keep(item: IncomingIntakeItem): Promise<void> {
    return this.group.add([item]);
  }

  /** Writes done so far (each for one or more postbacks). */
  get writes(): number {
    return this.group.writes;
  }

  close(): Promise<void> {
    return this.group.close();
  }

  private async write(items: IncomingIntakeItem[]): Promise<void> {
    const jobs = items.flatMap((item) => (item.job ? [item.job] : []));
    if (jobs.length) await this.queue.enqueue(jobs);
    await this.log.received(items.map((item) => item.entry));
  }
}

/**
 * Outcomes: the rows of the postbacks whose jobs were applied (or failed) meanwhile in one
 * `resolved` write of the log, after one hit lookup per account for the rows that do not yet know
 * their hit's funnel and traffic source.
 */
export class IncomingOutcomes {
  private readonly group: GroupCommit<IncomingLogEntry>;

  constructor(
    private readonly log: IncomingLogStore,
    private readonly hits: Pick<HitStore, 'getHits'>,
    options: GroupCommitOptions = INCOMING_BATCH_DEFAULTS,
  ) {
    this.group = new GroupCommit((entries) => this.write(entries), options);
  }

  resolve(entry: IncomingLogEntry): Promise<void> {
    return this.group.add([entry]);
  }

  close(): Promise<void> {
    return this.group.close();
  }

  private async write(entries: IncomingLogEntry[]): Promise<void> {
    const lookups = new Map<string, IncomingLogEntry[]>();
    for (const entry of entries) {
      if (entry.outcome === 'unknownHit' || entry.idFunnel !== '') continue;
      lookups.set(entry.accountId, [...(lookups.get(entry.accountId) ?? []), entry]);
    }
    for (const [accountId, unplaced] of lookups) {
      const found = new Map((await this.hits.getHits(accountId, [...new Set(unplaced.map((e) => e.hitId))])).map((hit) => [hit.hitId, hit]));
      for (const entry of unplaced) {
        const hit = found.get(entry.hitId);
        if (hit) Object.assign(entry, { idFunnel: hit.idFunnel, idTrafficSource: hit.idTrafficSource });
      }
    }
    await this.log.resolved(entries);
  }
}
