import { GroupCommit, GroupCommitClosedError, GroupCommitOverloadedError } from './group-commit';

/** A writer that records its batches and holds each write until released. */
function heldWriter() {
  const batches: number[][] = [];
  const releases: ((error?: Error) => void)[] = [];
  const write = (items: number[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...items]);
      releases.push((error) => (error ? reject(error) : resolve()));
    });
  return { batches, releases, write };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('GroupCommit: concurrent callers share one durable write', () => {
  it("writes the items of many concurrent calls in a few writes, and each call resolves with its batch's write", async () => {
    const written: number[][] = [];
    const group = new GroupCommit<number>((items) => void written.push([...items]), { maxItems: 256, maxWaitMs: 0 });
    const calls = Array.from({ length: 1000 }, (_, i) => group.add([2 * i, 2 * i + 1]));
    await Promise.all(calls);
    expect(written.flat()).toEqual(Array.from({ length: 2000 }, (_, i) => i));
    expect(group.writes).toBe(written.length);
    expect(written.length).toBeLessThanOrEqual(8);
    expect(Math.max(...written.map((batch) => batch.length))).toBeLessThanOrEqual(257);
  });

  it('writes a batch once it holds maxItems, without waiting for the timer', async () => {
    const { batches, releases, write } = heldWriter();
    const group = new GroupCommit<number>(write, { maxItems: 3, maxWaitMs: 60_000 });
    void group.add([1, 2]);
    await turn();
    expect(batches).toEqual([]);
    void group.add([3]);
    await turn();
    expect(batches).toEqual([[1, 2, 3]]);
    releases.forEach((release) => release());
    await group.close();
  });

  it('lets a batch waiting for the writer take later calls, up to maxItems', async () => {
    const { batches, releases, write } = heldWriter();
    const group = new GroupCommit<number>(write, { maxItems: 4, maxWaitMs: 0, maxConcurrentWrites: 1 });
    const first = group.add([1]);
    await turn();
    expect(batches).toEqual([[1]]);
    // The writer is busy: these wait together.
    const waiting = [group.add([2]), group.add([3]), group.add([4, 5]), group.add([6])];
    await turn();
    releases[0]();
    await first;
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4, 5]]);
    releases[1]();
    await turn();
    await turn();
    expect(batches).toEqual([[1], [2, 3, 4, 5], [6]]);
    releases[2]();
    await Promise.all(waiting);
  });

  it('rejects every call of a failed write with its error, and later calls write again', async () => {
    const { releases, write, batches } = heldWriter();
    const group = new GroupCommit<number>(write, { maxWaitMs: 0 });
    const failing = [group.add([1]), group.add([2])];
    await turn();
    releases[0](new Error('disk full'));
    for (const call of failing) await expect(call).rejects.toThrow('disk full');
    const next = group.add([3]);
    await turn();
    releases[1]();
    await next;
    expect(batches).toEqual([[1, 2], [3]]);
  });

  it('refuses calls beyond maxQueued instead of queueing without bound', async () => {
    const { releases, write } = heldWriter();
    const group = new GroupCommit<number>(write, { maxWaitMs: 0, maxQueued: 3 });
    const accepted = group.add([1, 2, 3]);
    await expect(group.add([4])).rejects.toBeInstanceOf(GroupCommitOverloadedError);
    await turn();
    releases[0]();
    await accepted;
    const later = group.add([4]);
    await turn();
    releases[1]();
    await later;
  });

  it('writes what waits when closed, then refuses new calls', async () => {
    const written: number[][] = [];
    const group = new GroupCommit<number>((items) => void written.push([...items]), { maxWaitMs: 60_000 });
    const waiting = group.add([1, 2]);
    await group.close();
    await waiting;
    expect(written).toEqual([[1, 2]]);
    await expect(group.add([3])).rejects.toBeInstanceOf(GroupCommitClosedError);
  });
});
