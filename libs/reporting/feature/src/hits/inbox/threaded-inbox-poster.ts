import { SqliteWriterThread } from '@funnel/eventstore';
import { HitInbox, POSTED_INSERT_SQL } from './hit-inbox';
import { packPostedBatch } from './posted-batch';

/**
 * Posts batches to the hits inbox (as HitInbox.post) from a writer thread of its own: the event
 * loop only packs the batch's text, and the commit, with the WAL checkpoints and their fsyncs, happens
 * in the thread. `post` resolves once the batch is committed (durable through a crash of the
 * process); batches posted while one is being written wait for it (the caller groups them: the
 * standalone edge's group commit writes one batch at a time).
 */
export class ThreadedInboxPoster {
  private readonly thread: SqliteWriterThread;

  constructor(filename: string) {
    // The file and its tables, as the holder makes them (0600, WAL): the thread only writes rows.
    new HitInbox(filename).close();
    this.thread = new SqliteWriterThread({ filename, statements: { post: POSTED_INSERT_SQL }, store: 'hits inbox' });
    this.thread.start();
  }

  post(inputs: readonly unknown[]): Promise<void> {
    if (inputs.length === 0) return Promise.resolve();
    return this.thread.run('post', [[packPostedBatch(inputs)]]).then(() => undefined);
  }

  /** Waits for the batches being written, then stops the thread. */
  close(): Promise<void> {
    return this.thread.close();
  }
}
