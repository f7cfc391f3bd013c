import type { Hit } from '@funnel/reporting-domain';
import type { HitBatchWriter } from './hit-sink';

/**
 * Where the standalone edge posts its hits, in reporting (@funnel/reporting-feature): the ingest of
 * the warehouse this process holds (InProcessHitPoster) or its hits inbox (HitInbox,
 * ThreadedInboxPoster).
 */
export interface HitInboxPoster {
  /**
   * Makes a batch durable (once it returns or, when it answers a promise, once that resolves).
   * InProcessHitPoster ingests it into the warehouse at once (durable in its ingest log); HitInbox
   * commits it to the inbox on the event loop, ThreadedInboxPoster in a writer thread, and the
   * process holding the warehouse ingests it later.
   */
  post(inputs: readonly unknown[]): void | Promise<void>;
}

/**
 * Standalone: a batch of hits posted to reporting. With the embedded warehouse in the process, its
 * ingest stores the batch before `write` resolves (one warehouse write for the batch). Otherwise the
 * batch is one row of the reporting hits inbox (a table of DATA_DIR/reporting.sqlite, committed
 * before `write` resolves, so it outlives a crash of the process); the process holding the hit
 * warehouse drains the inbox every 50 ms into it, several batches per warehouse write, and removes
 * them once stored. The poster is opened and closed by whoever passes it (the edge does not load the
 * warehouse's code).
 */
export class InboxHitWriter implements HitBatchWriter {
  constructor(private readonly inbox: HitInboxPoster) {}

  write(hits: Hit[]): void | Promise<void> {
    return this.inbox.post(hits);
  }
}
