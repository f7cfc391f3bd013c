import { RateLimiter } from './rate-limiter';

describe('RateLimiter', () => {
  function limiter(options: { perSecond: number; burst: number; maxBuckets?: number }) {
    const time = { now: 1_000_000 };
    return { time, limiter: new RateLimiter({ ...options, clock: () => time.now }) };
  }

  it('allows a burst, then refuses with the time until the next token', () => {
    const { limiter: l } = limiter({ perSecond: 2, burst: 3 });
    expect([1, 2, 3].map(() => l.take('a'))).toEqual([
      { allowed: true, remaining: 2, resetSeconds: 1, retryAfterSeconds: 0 },
      { allowed: true, remaining: 1, resetSeconds: 1, retryAfterSeconds: 0 },
      { allowed: true, remaining: 0, resetSeconds: 2, retryAfterSeconds: 0 },
    ]);
    expect(l.take('a')).toEqual({ allowed: false, remaining: 0, resetSeconds: 2, retryAfterSeconds: 1 });
  });

  it('refills at the rate, up to the burst', () => {
    const { time, limiter: l } = limiter({ perSecond: 10, burst: 5 });
    for (let i = 0; i < 5; i++) l.take('a');
    expect(l.take('a').allowed).toBe(false);
    time.now += 100;
    expect(l.take('a')).toMatchObject({ allowed: true, remaining: 0 });
    expect(l.take('a').allowed).toBe(false);
    time.now += 60_000;
    expect(l.take('a')).toMatchObject({ allowed: true, remaining: 4 });
  });

  it('keeps one bucket per key', () => {
    const { limiter: l } = limiter({ perSecond: 1, burst: 1 });
    expect(l.take('a').allowed).toBe(true);
    expect(l.take('a').allowed).toBe(false);
    expect(l.take('b').allowed).toBe(true);
  });

  it('drops buckets that are full again, and never holds more than maxBuckets', () => {
    const { time, limiter: l } = limiter({ perSecond: 100, burst: 200, maxBuckets: 1000 });
    for (let i = 0; i < 500; i++) l.take(`idle-${i}`);
    expect(l.size).toBe(500);
    // Two seconds refill a bucket of 200 at 100/s: after the next minute's sweep, the idle keys are gone.
    time.now += 61_000;
    l.take('new');
    expect(l.size).toBe(1);
    for (let i = 0; i < 5000; i++) l.take(`busy-${i}`);
    expect(l.size).toBeLessThanOrEqual(1000);
    // A key that was evicted starts with a full bucket, as a new one.
    expect(l.take('busy-0')).toMatchObject({ allowed: true, remaining: 199 });
  });
});
