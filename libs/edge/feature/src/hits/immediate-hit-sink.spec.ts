import type { Hit } from '@funnel/reporting-domain';
import { GroupCommitClosedError, GroupCommitOverloadedError } from '@funnel/platform';
import { someHits } from './fixtures';
import type { HitBatchWriter } from './hit-sink';
import { ImmediateHitSink } from './immediate-hit-sink';

/** A writer whose writes stay open until the test settles them. */
class HeldWriter implements HitBatchWriter {
  readonly batches: { hits: Hit[]; settle: (error?: Error) => void }[] = [];
  closed = false;

  write(hits: Hit[]): Promise<void> {
    return new Promise<void>((resolve, reject) => this.batches.push({ hits: [...hits], settle: (error) => (error ? reject(error) : resolve()) }));
  }

  close(): void {
    this.closed = true;
  }
}

describe('ImmediateHitSink (distributed: each request’s hits published at once)', () => {
  it('hands each record’s hits to the writer in the caller’s turn, and resolves once that write is durable', async () => {
    const writer = new HeldWriter();
    const sink = new ImmediateHitSink(writer);
    let done = false;
    const recorded = sink.record(someHits(3)).then(() => (done = true));
    // Synchronously: no timer or later turn stands between the record and the write.
    expect(writer.batches.map((batch) => batch.hits.length)).toEqual([3]);
    await Promise.resolve();
    expect(done).toBe(false);
    writer.batches[0].settle();
    await recorded;
    expect(done).toBe(true);
  });

  it('rejects a record whose write failed (its redirect is not answered as a success)', async () => {
    const writer = new HeldWriter();
    const sink = new ImmediateHitSink(writer);
    const recorded = sink.record(someHits(2));
    writer.batches[0].settle(new Error('the stream refused it'));
    await expect(recorded).rejects.toThrow('the stream refused it');
    expect(sink.pending).toBe(0);
  });

  it('refuses hits beyond maxQueued waiting, and takes them again once the earlier ones are durable', async () => {
    const writer = new HeldWriter();
    const sink = new ImmediateHitSink(writer, 5);
    const first = sink.record(someHits(4));
    await expect(sink.record(someHits(2, 4))).rejects.toBeInstanceOf(GroupCommitOverloadedError);
    expect(writer.batches).toHaveLength(1);
    writer.batches[0].settle();
    await first;
    await new Promise((resolve) => setImmediate(resolve));
    const second = sink.record(someHits(2, 4));
    writer.batches[1].settle();
    await second;
  });

  it('waits at close for the hits being written, then refuses new ones and closes the writer', async () => {
    const writer = new HeldWriter();
    const sink = new ImmediateHitSink(writer);
    const recorded = sink.record(someHits(1));
    let closed = false;
    const closing = sink.close().then(() => (closed = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(closed).toBe(false);
    writer.batches[0].settle();
    await Promise.all([recorded, closing]);
    expect(writer.closed).toBe(true);
    await expect(sink.record(someHits(1))).rejects.toBeInstanceOf(GroupCommitClosedError);
  });
});
