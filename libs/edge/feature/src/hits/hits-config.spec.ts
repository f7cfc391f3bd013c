import { loadConfig } from '@funnel/platform';
import { someHits } from './fixtures';
import { edgeHitsConfig, inboxHitSink } from './hits-config';

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("the standalone edge's hit group commit, as configured by default (no HITS_COMMIT_* set)", () => {
  // Timers are frozen (setImmediate is not): a batch that waited for a timer would never be written here.
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it("writes a request's hits at the end of its event-loop turn, no timer holding them", async () => {
    const posted: number[] = [];
    const sink = inboxHitSink({ post: (hits) => void posted.push(hits.length) }, loadConfig(edgeHitsConfig, {}));
    const recorded = sink.record(someHits(4));
    await turn();
    await recorded;
    expect(posted).toEqual([4]);
  });

  it('gathers the hits recorded while a write is under way into the next write', async () => {
    const posted: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const sink = inboxHitSink({ post: (hits) => (posted.push(hits.length), posted.length === 1 ? held : undefined) }, loadConfig(edgeHitsConfig, {}));
    const first = sink.record(someHits(3));
    await turn();
    // Three more requests, each in a turn of its own, while the first write holds.
    const later = [];
    for (let i = 1; i <= 3; i++) {
      later.push(sink.record(someHits(2, 10 * i)));
      await turn();
    }
    expect(posted).toEqual([3]);
    release();
    await Promise.all([first, ...later]);
    expect(posted).toEqual([3, 6]);
  });
});
