import type { Hit } from '@funnel/reporting-domain';
import { GroupCommitClosedError, GroupCommitOverloadedError } from '@funnel/platform';
import type { HitBatchWriter, HitSink } from './hit-sink';

/**
 * A HitSink that hands each `record` call's hits to the writer at once, in the caller's turn of the
 * event loop: for a writer with many writes in flight whose batch costs the same per hit however it
 * is grouped (JetStream: one message per hit, sent by its JetStreamPublisher at the end of the turn
 * with the turn's session puts, in one socket write), without waiting for a group's timer.
 * At most `maxQueued` hits wait to be made durable; more are refused (GroupCommitOverloadedError),
 * as GroupCommitHitSink refuses them.
 */
export class ImmediateHitSink implements HitSink {
  private queued = 0;
  private closed = false;
  private readonly writing = new Set<Promise<unknown>>();

  constructor(
    private readonly writer: HitBatchWriter,
    private readonly maxQueued = 50_000,
  ) {}

  record(hits: readonly Hit[]): Promise<void> {
    if (this.closed) return Promise.reject(new GroupCommitClosedError());
    if (hits.length === 0) return Promise.resolve();
    if (this.queued + hits.length > this.maxQueued) return Promise.reject(new GroupCommitOverloadedError(this.queued));
    this.queued += hits.length;
    let written: Promise<void>;
    try {
      written = Promise.resolve(this.writer.write(hits as Hit[]));
    } catch (error) {
      written = Promise.reject(error);
    }
    const settled = written.then(
      () => undefined,
      () => undefined,
    );
    this.writing.add(settled);
    void settled.then(() => {
      this.queued -= hits.length;
      this.writing.delete(settled);
    });
    return written;
  }

  /** Hits recorded and not yet durable. */
  get pending(): number {
    return this.queued;
  }

  /** Waits for the hits being written, then refuses new ones and closes the writer. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.writing.size > 0) await Promise.all(this.writing);
    await this.writer.close?.();
  }
}
