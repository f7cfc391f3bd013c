import type { Hit } from '@funnel/reporting-domain';
import type { HitBatchWriter } from './hit-sink';

/** The side of reporting's HitInbox (@funnel/reporting-feature) the standalone edge writes to. */
export interface HitInboxPoster {
  /**
   * Commits a batch to the inbox (durable once it returns or, when it answers a promise, once that
   * resolves); the process holding the warehouse ingests it later. HitInbox writes on the event
   * loop, ThreadedInboxPoster (the standalone edge's) in a writer thread.
   */
  post(inputs: readonly unknown[]): void | Promise<void>;
}

/**
 * Standalone: a batch of hits is one row of the reporting hits inbox (a table of
 * DATA_DIR/reporting.sqlite, committed before `write` returns, so it outlives a crash of the
 * process); the process holding the hit warehouse drains the inbox every 50 ms into it, several
 * batches per warehouse write, and removes them once stored. The inbox is opened and closed by
 * whoever passes it (the edge does not load the warehouse's code).
 */
export class InboxHitWriter implements HitBatchWriter {
  constructor(private readonly inbox: HitInboxPoster) {}

  write(hits: Hit[]): void | Promise<void> {
    return this.inbox.post(hits);
  }
}
