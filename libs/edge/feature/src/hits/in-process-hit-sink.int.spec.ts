import { join } from 'node:path';
import type { Hit } from '@funnel/reporting-domain';
import { HitInbox, InProcessHitPoster, ThreadedInboxPoster, createHitStore, ingestHits, type HitStore } from '@funnel/reporting-feature';
import { tempDir, type TempDir } from '@funnel/testing';
import { ACCOUNT, WINDOW, eventually, someHits } from './fixtures';
import { GroupCommitHitSink } from './group-commit-hit-sink';
import { InboxHitWriter } from './inbox-hit-writer';

describe('the standalone hit sink with the warehouse in the process: hits ingested at once, the inbox when it is held', () => {
  let dir: TempDir;
  const closers: (() => Promise<void> | void)[] = [];
  beforeEach(() => {
    dir = tempDir('in-process-hit-sink');
  });
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    dir.remove();
  });
  const reportingFile = () => join(dir.path, 'reporting.sqlite');

  /** The sink as standalone wires it: group commit, the warehouse's ingest, the inbox (from its writer thread) as the fallback. */
  const openSink = async ({ ingestInto = (store: HitStore) => store, waitMs }: { ingestInto?: (store: HitStore) => HitStore; waitMs: number }) => {
    const store = await createHitStore({ dataDir: dir.path });
    closers.push(() => store.close());
    const threaded = new ThreadedInboxPoster(reportingFile());
    closers.push(() => threaded.close());
    const inbox = new HitInbox(reportingFile());
    closers.push(() => inbox.close());
    const poster = new InProcessHitPoster((inputs) => ingestHits(ingestInto(store), inputs), {
      fallback: threaded,
      fallbackWaiting: () => inbox.postedWaiting() > 0,
      waitMs,
    });
    const sink = new GroupCommitHitSink(new InboxHitWriter(poster), { maxWaitMs: 0, maxConcurrentWrites: 1 });
    closers.push(() => sink.close());
    return { store, sink, inbox };
  };

  it('has the hits of a record in the warehouse once it resolves, each once, the inbox untouched', async () => {
    // The warehouse is given all the time it takes (a loaded test machine is slow): the inbox is not used.
    const { store, sink, inbox } = await openSink({ waitMs: 60_000 });
    await Promise.all(Array.from({ length: 40 }, (_, i) => sink.record(someHits(3, 3 * i))));
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(120);
    // A retry of hits already stored changes nothing.
    await sink.record(someHits(30));
    expect(await store.countHits(ACCOUNT, WINDOW)).toBe(120);
    expect(inbox.postedWaiting()).toBe(0);
    expect(sink.writes).toBeLessThan(41);
  });

  it('commits the batches to the inbox while the warehouse is held, and the drain stores each hit once', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // Another write holds the warehouse's writer: ingests wait for it.
    const holding = (store: HitStore) => ({ insertHits: async (hits: readonly Hit[]) => (await held, store.insertHits(hits)) }) as unknown as HitStore;
    const { store, sink, inbox } = await openSink({ ingestInto: holding, waitMs: 50 });
    await Promise.all(Array.from({ length: 20 }, (_, i) => sink.record(someHits(5, 5 * i))));
    expect(inbox.postedWaiting()).toBeGreaterThan(0);
    // The writer is free again: the late ingests store their hits, the drain finds them stored.
    release();
    const stopDrain = inbox.watch((inputs) => ingestHits(store, inputs), 10);
    closers.push(stopDrain);
    await eventually(() => inbox.postedWaiting() === 0, 'the inbox is drained');
    await eventually(async () => (await store.countHits(ACCOUNT, WINDOW)) === 100, 'the hits are stored');
    await sink.record(someHits(5, 100));
    await eventually(async () => (await store.countHits(ACCOUNT, WINDOW)) === 105, 'the later hits are stored');
  });
});
