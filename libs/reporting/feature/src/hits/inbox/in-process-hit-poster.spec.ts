import type { IngestHitsResult } from '../ingest-hits';
import { PostedHitsRefusedError } from './hit-inbox';
import { InProcessHitPoster } from './in-process-hit-poster';

const stored = (count: number): IngestHitsResult => ({ inserted: count, ignored: 0, invalid: [], invalidCount: 0 });

/** An ingest whose calls wait until the test settles them. */
function gatedIngest() {
  const calls: { inputs: unknown[]; resolve: (result: IngestHitsResult) => void; reject: (error: unknown) => void }[] = [];
  const ingest = (inputs: unknown[]) => new Promise<IngestHitsResult>((resolve, reject) => calls.push({ inputs, resolve, reject }));
  return { calls, ingest };
}

/** A fallback (the inbox) that keeps what it is posted. */
function keepingFallback() {
  const batches: unknown[][] = [];
  return { batches, post: (inputs: readonly unknown[]) => void batches.push([...inputs]) };
}

const settledYet = async (promise: Promise<unknown>): Promise<boolean> => {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

describe('InProcessHitPoster: the edge hits straight to the warehouse ingest in the process', () => {
  it('resolves once the ingest did, with the batch as posted', async () => {
    const { calls, ingest } = gatedIngest();
    const poster = new InProcessHitPoster(ingest);
    const posted = poster.post([{ hitId: 'a' }, { hitId: 'b' }]);
    expect(calls.map((call) => call.inputs)).toEqual([[{ hitId: 'a' }, { hitId: 'b' }]]);
    expect(await settledYet(posted)).toBe(false);
    calls[0].resolve(stored(2));
    await expect(posted).resolves.toBeUndefined();
  });

  it('posts nothing for an empty batch', async () => {
    const { calls, ingest } = gatedIngest();
    await new InProcessHitPoster(ingest).post([]);
    expect(calls).toHaveLength(0);
  });

  it('reports hits the warehouse refuses as invalid and drops them, as the inbox drain does', async () => {
    const errors: unknown[] = [];
    const refused: IngestHitsResult = { inserted: 1, ignored: 0, invalid: [{ index: 1, errors: [{ field: 'hitId', message: 'bad' }] }], invalidCount: 1 };
    const fallback = keepingFallback();
    const poster = new InProcessHitPoster(async () => refused, { fallback, onError: (error) => errors.push(error) });
    await poster.post([{}, {}]);
    expect(errors).toEqual([expect.any(PostedHitsRefusedError)]);
    expect(fallback.batches).toEqual([]);
  });

  it('fails with the ingest when it has no fallback', async () => {
    const poster = new InProcessHitPoster(() => Promise.reject(new Error('disk full')));
    await expect(poster.post([{}])).rejects.toThrow('disk full');
  });

  it('posts a batch the warehouse failed to store to the fallback, and resolves once that took it', async () => {
    const errors: unknown[] = [];
    const fallback = keepingFallback();
    const poster = new InProcessHitPoster(() => Promise.reject(new Error('disk full')), { fallback, onError: (error) => errors.push(error) });
    await poster.post([{ hitId: 'a' }]);
    expect(fallback.batches).toEqual([[{ hitId: 'a' }]]);
    expect(errors).toEqual([new Error('disk full')]);
  });

  it('fails when the fallback fails too', async () => {
    const poster = new InProcessHitPoster(() => Promise.reject(new Error('disk full')), {
      fallback: { post: () => Promise.reject(new Error('inbox full')) },
    });
    await expect(poster.post([{}])).rejects.toThrow('inbox full');
  });

  it('posts a batch the warehouse does not store in time to the fallback, and the next ones at once until that ingest is over', async () => {
    const { calls, ingest } = gatedIngest();
    const fallback = keepingFallback();
    const poster = new InProcessHitPoster(ingest, { fallback, waitMs: 5 });
    // The warehouse is busy: the first batch waits for it, then goes to the inbox as well.
    await poster.post([{ hitId: 'a' }]);
    expect(calls).toHaveLength(1);
    expect(fallback.batches).toEqual([[{ hitId: 'a' }]]);
    // While that ingest is not over, batches go to the inbox only.
    await poster.post([{ hitId: 'b' }]);
    expect(calls).toHaveLength(1);
    expect(fallback.batches).toEqual([[{ hitId: 'a' }], [{ hitId: 'b' }]]);
    // Once it is, to the warehouse again.
    calls[0].resolve(stored(1));
    await new Promise((resolve) => setImmediate(resolve));
    const third = poster.post([{ hitId: 'c' }]);
    expect(calls).toHaveLength(2);
    calls[1].resolve(stored(1));
    await third;
    expect(fallback.batches).toHaveLength(2);
  });

  it('posts the batches `fallbackOnly` names to the fallback only', async () => {
    const { calls, ingest } = gatedIngest();
    const fallback = keepingFallback();
    const poster = new InProcessHitPoster(ingest, { fallback, fallbackOnly: (inputs) => inputs.some((input) => (input as { events?: boolean }).events) });
    await poster.post([{ hitId: 'a' }, { hitId: 'b', events: true }]);
    expect(calls).toHaveLength(0);
    expect(fallback.batches).toEqual([[{ hitId: 'a' }, { hitId: 'b', events: true }]]);
    const other = poster.post([{ hitId: 'c' }]);
    expect(calls.map((call) => call.inputs)).toEqual([[{ hitId: 'c' }]]);
    calls[0].resolve(stored(1));
    await other;
  });

  it('after the fallback took a batch, posts the next ones to it until it holds none waiting', async () => {
    const fallback = keepingFallback();
    let waiting = true;
    let failing = true;
    const ingested: unknown[][] = [];
    const poster = new InProcessHitPoster(
      async (inputs) => {
        if (failing) throw new Error('disk full');
        ingested.push(inputs);
        return stored(inputs.length);
      },
      { fallback, fallbackWaiting: () => waiting },
    );
    await poster.post([{ hitId: 'a' }]);
    failing = false;
    // The fallback still holds the first batch: the second follows it there.
    await poster.post([{ hitId: 'b' }]);
    expect(fallback.batches).toEqual([[{ hitId: 'a' }], [{ hitId: 'b' }]]);
    expect(ingested).toEqual([]);
    // Drained: to the warehouse again.
    waiting = false;
    await poster.post([{ hitId: 'c' }]);
    expect(ingested).toEqual([[{ hitId: 'c' }]]);
    expect(fallback.batches).toHaveLength(2);
  });

  it('leaves the fallback alone when the ingest answers in time', async () => {
    const fallback = keepingFallback();
    const poster = new InProcessHitPoster(async (inputs) => stored(inputs.length), { fallback, waitMs: 1000 });
    await Promise.all([poster.post([{}]), poster.post([{}, {}])]);
    expect(fallback.batches).toEqual([]);
  });
});
