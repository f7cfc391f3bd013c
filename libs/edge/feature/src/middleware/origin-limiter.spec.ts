import { OriginLimiter } from './origin-limiter';

describe('OriginLimiter', () => {
  it('lets `concurrency` calls of one origin run, queues `queue` more, and refuses the rest at once', async () => {
    const limiter = new OriginLimiter({ concurrency: 2, queue: 1 });
    const a = await limiter.acquire('http://slow', 1000);
    const b = await limiter.acquire('http://slow', 1000);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    const queued = limiter.acquire('http://slow', 60_000);
    expect(await limiter.acquire('http://slow', 60_000)).toBeNull();
    expect(limiter.load('http://slow')).toEqual({ active: 2, waiting: 1 });
    // Another origin is not held by the slow one.
    const other = await limiter.acquire('http://fast', 1000);
    expect(other).not.toBeNull();
    a!();
    const third = await queued;
    expect(third).not.toBeNull();
    expect(limiter.load('http://slow')).toEqual({ active: 2, waiting: 0 });
    b!();
    third!();
    other!();
    expect(limiter.load('http://slow')).toEqual({ active: 0, waiting: 0 });
  });

  it('gives up a wait whose time runs out, and a release twice frees one slot', async () => {
    jest.useFakeTimers();
    try {
      const limiter = new OriginLimiter({ concurrency: 1, queue: 5 });
      const held = await limiter.acquire('o', 10);
      const waiting = limiter.acquire('o', 50);
      jest.advanceTimersByTime(50);
      expect(await waiting).toBeNull();
      expect(limiter.load('o')).toEqual({ active: 1, waiting: 0 });
      held!();
      held!();
      expect(limiter.load('o')).toEqual({ active: 0, waiting: 0 });
      expect(await limiter.acquire('o', 0)).not.toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });
});
