import { LeaseExpiredError, backoffAfter, resolveQueueOptions, runDelivery } from './job-delivery';
import type { JobDelivery } from './job-queue';

const options = resolveQueueOptions({ name: 'Q', subjectPrefix: 'q.jobs', maxAttempts: 3, backoffMs: [10, 20] });
const delivery = (attempt: number): JobDelivery<{ n: number }> => ({
  job: { jobId: 'job-1', type: 't', accountId: 'a', payload: { n: 1 }, queuedAt: '2026-01-01T00:00:00.000Z' },
  attempt,
  wait: (pending) => pending,
  isFirstOfAccount: async () => true,
  isNextOfAccountAfter: async () => false,
  untilFirstOfAccount: async () => true,
});
const failing = async () => {
  throw new Error('boom');
};

describe('runDelivery', () => {
  it('acks a handled job, retries a failed one after its backoff, the last wait repeating', async () => {
    expect(await runDelivery(delivery(1), async () => undefined, {}, options)).toEqual({ kind: 'ack' });
    expect(await runDelivery(delivery(1), failing, {}, options)).toEqual({ kind: 'retry', delayMs: 10 });
    expect(await runDelivery(delivery(2), failing, {}, options)).toEqual({ kind: 'retry', delayMs: 20 });
    expect([1, 2, 3, 7].map((attempt) => backoffAfter([10, 20], attempt))).toEqual([10, 20, 20, 20]);
  });

  it('exhausts the last failed attempt: onExhausted once, then removal even when onExhausted throws', async () => {
    const exhausted: unknown[] = [];
    const errors: unknown[] = [];
    const outcome = await runDelivery(
      delivery(3),
      failing,
      {
        onExhausted: async (_delivery, error) => {
          exhausted.push(error);
          throw new Error('could not record');
        },
        onError: (error) => errors.push(error),
      },
      options,
    );
    expect(outcome).toEqual({ kind: 'remove' });
    expect(exhausted.map((error) => (error as Error).message)).toEqual(['boom']);
    expect(errors.map((error) => (error as Error).message)).toEqual(['boom', 'could not record']);
  });

  it('exhausts a delivery past maxAttempts without calling the handler (the last attempt died)', async () => {
    const calls: number[] = [];
    const exhausted: unknown[] = [];
    const outcome = await runDelivery(
      delivery(4),
      async (d) => void calls.push(d.attempt),
      { onExhausted: async (_d, error) => void exhausted.push(error) },
      options,
    );
    expect(outcome).toEqual({ kind: 'remove' });
    expect(calls).toEqual([]);
    expect(exhausted[0]).toBeInstanceOf(LeaseExpiredError);
  });
});

describe('resolveQueueOptions', () => {
  it('fills the defaults and refuses settings no adapter can honour', () => {
    expect(resolveQueueOptions({ name: 'REPORTING_UPDATES', subjectPrefix: 'reporting.updates' })).toEqual({
      name: 'REPORTING_UPDATES',
      subjectPrefix: 'reporting.updates',
      maxAttempts: 5,
      backoffMs: [1000, 5000, 30_000, 120_000],
      ackWaitMs: 15_000,
      maxRunMs: 300_000,
      dedupeWindowMs: 120_000,
    });
    expect(() => resolveQueueOptions({ name: 'A.B', subjectPrefix: 'a' })).toThrow(/name/);
    expect(() => resolveQueueOptions({ name: 'A', subjectPrefix: 'a.>' })).toThrow(/prefix/);
    expect(() => resolveQueueOptions({ name: 'A', subjectPrefix: 'a', maxAttempts: 0 })).toThrow(/maxAttempts/);
    expect(() => resolveQueueOptions({ name: 'A', subjectPrefix: 'a', backoffMs: [] })).toThrow(/backoffMs/);
  });
});
