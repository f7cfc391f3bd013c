import { join } from 'node:path';
import { HitInbox, ThreadedInboxPoster, createHitStore, ingestHits, type HitStore } from '@funnel/reporting-feature';
import { tempDir, type TempDir } from '@funnel/testing';
import { ACCOUNT, WINDOW, eventually, someHits } from './fixtures';
import { GroupCommitHitSink } from './group-commit-hit-sink';
import { InboxHitWriter } from './inbox-hit-writer';

describe('the standalone hit sink: batches committed to the reporting hits inbox', () => {
  let dir: TempDir;
  const closers: (() => Promise<void> | void)[] = [];
  beforeEach(() => {
    dir = tempDir('hits-inbox-sink');
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    dir.remove();
  });
  const reportingFile = () => join(dir.path, 'reporting.sqlite');

  /** The process holding the warehouse: the DuckDB store and the inbox watcher, as the standalone reporting module runs them. */
  const startHolder = async () => {
    const store: HitStore = await createHitStore({ dataDir: dir.path });
    const inbox = new HitInbox(reportingFile());
    const stopWatching = inbox.watch((inputs) => ingestHits(store, inputs), 10);
    const stop = async () => {
      await stopWatching();
      inbox.close();
      await store.close();
    };
    return { store, stop };
  };
  const openSink = () => {
    const inbox = new HitInbox(reportingFile());
    const sink = new GroupCommitHitSink(new InboxHitWriter(inbox), { maxWaitMs: 0 });
    closers.push(() => inbox.close());
    closers.push(() => sink.close());
    return { sink, inbox };
  };

  it('keeps recorded hits through a restart of the holder, and stores each once', async () => {
    const holder = await startHolder();
    const { sink, inbox } = openSink();
    await sink.record(someHits(30));
    await eventually(async () => (await holder.store.countHits(ACCOUNT, WINDOW)) === 30, 'the first hits are stored');
    // The holder stops; hits recorded meanwhile are durable in the inbox only.
    await holder.stop();
    await Promise.all(Array.from({ length: 20 }, (_, i) => sink.record(someHits(5, 30 + 5 * i))));
    // A retry of hits already stored changes nothing.
    await sink.record(someHits(10));
    expect(inbox.postedWaiting()).toBeGreaterThan(0);
    await sink.close();
    const restarted = await startHolder();
    closers.push(restarted.stop);
    await eventually(() => inbox.postedWaiting() === 0, 'the inbox is drained');
    expect(await restarted.store.countHits(ACCOUNT, WINDOW)).toBe(130);
  });

  it('shares one inbox write among concurrent records', async () => {
    const { sink, inbox } = openSink();
    await Promise.all(Array.from({ length: 200 }, (_, i) => sink.record(someHits(3, 3 * i))));
    expect(sink.writes).toBeLessThanOrEqual(4);
    expect(inbox.postedWaiting()).toBe(sink.writes);
  });

  it('leaves a batch the warehouse could not store in the inbox for the next drain', async () => {
    const { sink, inbox } = openSink();
    await sink.record(someHits(5));
    const holderInbox = new HitInbox(reportingFile());
    closers.push(() => holderInbox.close());
    await expect(holderInbox.drain(async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect(inbox.postedWaiting()).toBe(1);
    const stored: unknown[] = [];
    await holderInbox.drain(async (inputs) => {
      stored.push(...inputs);
      return { inserted: inputs.length, ignored: 0, invalid: [], invalidCount: 0 };
    });
    expect(stored).toHaveLength(5);
    expect(inbox.postedWaiting()).toBe(0);
  });

  it('commits from a writer thread: a record resolves once its batch is in the inbox, and the holder stores each hit once', async () => {
    const poster = new ThreadedInboxPoster(reportingFile());
    const sink = new GroupCommitHitSink(new InboxHitWriter(poster), { maxWaitMs: 0 });
    closers.push(() => poster.close());
    closers.push(() => sink.close());
    const inbox = new HitInbox(reportingFile());
    closers.push(() => inbox.close());
    await Promise.all(Array.from({ length: 50 }, (_, i) => sink.record(someHits(4, 4 * i))));
    expect(inbox.postedWaiting()).toBe(sink.writes);
    expect(sink.writes).toBeLessThan(50);
    const holder = await startHolder();
    closers.push(holder.stop);
    await eventually(() => inbox.postedWaiting() === 0, 'the inbox is drained');
    expect(await holder.store.countHits(ACCOUNT, WINDOW)).toBe(200);
  });
});
