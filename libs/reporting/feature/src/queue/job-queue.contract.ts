import { randomBytes, randomUUID } from 'node:crypto';
import { JobTooLargeError, type JobConsumerOptions, type JobDelivery, type JobEnvelope, type JobQueue, type JobQueueOptions } from './job-queue';

export interface ContractPayload {
  n: number;
  rows?: { hitId: string; payout: number }[];
}

export interface JobQueueContractBackend {
  /**
   * A new queue instance over the shared backing store: embedded, the same file; JetStream, a new
   * connection to the same server. `options` always carry a name and subject prefix unique to the test.
   */
  open(options: JobQueueOptions): Promise<JobQueue<ContractPayload>>;
  /** Restarts the backing server, if there is one (JetStream: nats-server on the same store dir). Called with every instance closed. */
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * The behaviour every JobQueue adapter must show. Call it from an adapter's spec file; it touches
 * jest's globals only when called. Timings are short (lease 1.5 s, a hung handler kept alive 1.5 s,
 * backoff 50/100 ms), so a slow machine makes the suite slower, never wrong.
 */
export function describeJobQueueContract(adapterName: string, backendFactory: () => Promise<JobQueueContractBackend>): void {
  describe(`JobQueue contract: ${adapterName}`, () => {
    let backend: JobQueueContractBackend;
    let options: JobQueueOptions;
    const opened: JobQueue<ContractPayload>[] = [];
    const releases: (() => void)[] = [];

    const open = async (overrides: Partial<JobQueueOptions> = {}) => {
      const queue = await backend.open({ ...options, ...overrides });
      opened.push(queue);
      return queue;
    };
    const job = (n: number, extra: Partial<JobEnvelope<ContractPayload>> = {}): JobEnvelope<ContractPayload> => ({
      jobId: `job-${n}-${randomUUID()}`,
      type: 'conversions',
      accountId: 'account-1',
      payload: { n },
      queuedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
      ...extra,
    });
    /** A handler that records deliveries; `behave` decides what each one does. */
    const recorder = (behave: (delivery: JobDelivery<ContractPayload>) => Promise<void> | void = () => undefined) => {
      const deliveries: JobDelivery<ContractPayload>[] = [];
      const handler = async (delivery: JobDelivery<ContractPayload>) => {
        deliveries.push(delivery);
        await behave(delivery);
      };
      return { deliveries, handler, seen: () => deliveries.map((d) => [d.job.payload.n, d.attempt]) };
    };
    /** A handler blocked until the test ends (or releases it). */
    const blocked = () =>
      new Promise<void>((resolve) => {
        releases.push(resolve);
      });

    beforeEach(async () => {
      backend = await backendFactory();
      const unique = randomUUID().replace(/-/g, '').slice(0, 12);
      options = { name: `CONTRACT_${unique}`, subjectPrefix: `contract${unique}.jobs`, ackWaitMs: 1500, maxRunMs: 1500, backoffMs: [50, 100], maxAttempts: 3 };
    });

    afterEach(async () => {
      releases.splice(0).forEach((release) => release());
      await Promise.all(opened.splice(0).map((queue) => queue.close()));
      await backend.cleanup();
    });

    it('delivers enqueued jobs with their envelope and attempt 1, and removes them once handled', async () => {
      const queue = await open();
      const rows = Array.from({ length: 50 }, (_, i) => ({ hitId: `hit-${i}`, payout: i / 4 }));
      const first = job(1, { type: 'cost', accountId: 'account-7', payload: { n: 1, rows } });
      const second = job(2);
      expect(await queue.enqueue([first, second])).toEqual({ duplicates: [] });
      expect(await queue.depth()).toBe(2);

      const { deliveries, handler } = recorder();
      await queue.consume(handler);
      await waitFor(async () => deliveries.length === 2 && (await queue.depth()) === 0);
      expect(deliveries).toEqual([
        { job: first, attempt: 1 },
        { job: second, attempt: 1 },
      ]);
    });

    it('stores a 3 MB job of repetitive rows and delivers it intact', async () => {
      const queue = await open();
      const rows = Array.from({ length: 12_000 }, (_, i) => ({ hitId: `hit-${i % 100}-${'x'.repeat(240)}`, payout: i }));
      const large = job(1, { payload: { n: 1, rows } });
      expect(JSON.stringify(large).length).toBeGreaterThan(3_000_000);
      expect(await queue.enqueue([large])).toEqual({ duplicates: [] });
      const { deliveries, handler } = recorder();
      await queue.consume(handler);
      await waitFor(async () => deliveries.length === 1 && (await queue.depth()) === 0);
      expect(deliveries[0].job).toEqual(large);
    });

    it('stores a 3 MB job of random rows intact, or refuses the whole enqueue with a JobTooLargeError naming the bound', async () => {
      const queue = await open();
      const rows = Array.from({ length: 11_000 }, (_, i) => ({ hitId: randomBytes(192).toString('base64'), payout: i }));
      const large = job(1, { payload: { n: 1, rows } });
      const small = job(2);
      expect(JSON.stringify(large).length).toBeGreaterThan(3_000_000);
      const outcome = await queue.enqueue([small, large]).catch((error: unknown) => error);
      const { deliveries, handler } = recorder();
      if (outcome instanceof JobTooLargeError) {
        expect(outcome.jobId).toBe(large.jobId);
        expect(outcome.bytes).toBeGreaterThan(outcome.limit);
        expect(outcome.message).toContain(`limit of ${outcome.limit} bytes`);
        // Nothing of the call was stored, not even the small job before it.
        expect(await queue.depth()).toBe(0);
        expect(await queue.enqueue([small])).toEqual({ duplicates: [] });
        await queue.consume(handler);
        await waitFor(async () => deliveries.length === 1 && (await queue.depth()) === 0);
        expect(deliveries.map((d) => d.job)).toEqual([small]);
      } else {
        expect(outcome).toEqual({ duplicates: [] });
        await queue.consume(handler);
        await waitFor(async () => deliveries.length === 2 && (await queue.depth()) === 0);
        expect(deliveries.map((d) => d.job)).toEqual([small, large]);
      }
    });

    it('refuses a job id enqueued before, while queued and after it was handled', async () => {
      const queue = await open();
      const a = job(1);
      const b = job(2);
      expect(await queue.enqueue([a])).toEqual({ duplicates: [] });
      expect(await queue.enqueue([{ ...a, payload: { n: 99 } }, b, b])).toEqual({ duplicates: [a.jobId, b.jobId] });
      expect(await queue.depth()).toBe(2);

      const { handler, seen } = recorder();
      await queue.consume(handler);
      await waitFor(async () => (await queue.depth()) === 0);
      expect(await queue.enqueue([a, job(3)])).toEqual({ duplicates: [a.jobId] });
      await waitFor(() => seen().length === 3);
      expect(seen()).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
      ]);
    });

    it('redelivers a job whose handler threw, counting attempts, after the backoff', async () => {
      const queue = await open();
      const errors: unknown[] = [];
      const exhausted: unknown[] = [];
      const { handler, seen } = recorder((delivery) => {
        if (delivery.attempt < 3) throw new Error(`failure ${delivery.attempt}`);
      });
      await queue.enqueue([job(1)]);
      await queue.consume(handler, { onError: (error) => errors.push(error), onExhausted: async (d) => void exhausted.push(d) });
      await waitFor(async () => seen().length === 3 && (await queue.depth()) === 0);

      expect(seen()).toEqual([
        [1, 1],
        [1, 2],
        [1, 3],
      ]);
      expect(errors.map((error) => (error as Error).message)).toEqual(['failure 1', 'failure 2']);
      expect(exhausted).toEqual([]);
    });

    it('calls onExhausted once after maxAttempts failures and removes the job', async () => {
      const queue = await open();
      const exhausted: [JobDelivery<ContractPayload>, unknown][] = [];
      const { handler, seen } = recorder((delivery) => {
        if (delivery.job.payload.n === 1) throw new Error(`failure ${delivery.attempt}`);
      });
      await queue.enqueue([job(1)]);
      await queue.consume(handler, { onExhausted: async (delivery, error) => void exhausted.push([delivery, error]) });
      await waitFor(() => exhausted.length === 1);
      // A later job goes through, and the exhausted one never comes back.
      await queue.enqueue([job(2)]);
      await waitFor(async () => seen().length === 4 && (await queue.depth()) === 0);

      expect(seen()).toEqual([
        [1, 1],
        [1, 2],
        [1, 3],
        [2, 1],
      ]);
      expect(exhausted).toHaveLength(1);
      expect(exhausted[0][0].attempt).toBe(3);
      expect(exhausted[0][0].job.payload).toEqual({ n: 1 });
      expect((exhausted[0][1] as Error).message).toBe('failure 3');
    });

    it('keeps a running handler alive past the ack wait: its job is not delivered again meanwhile', async () => {
      const queue = await open({ maxRunMs: 60_000 });
      await queue.enqueue([job(1), job(2)]);
      const { handler, seen } = recorder(async (delivery) => {
        // Twice the ack wait, without `wait`: a lease taken once and not renewed would have run out.
        if (delivery.job.payload.n === 1) await new Promise((resolve) => setTimeout(resolve, 2 * 1500));
      });
      await queue.consume(handler, { concurrency: 2 });
      await waitFor(async () => seen().length >= 2 && (await queue.depth()) === 0);
      expect(seen().sort()).toEqual([
        [1, 1],
        [2, 1],
      ]);
    });

    it('gives a job another consumer once a consumer took it and never answered within maxRunMs and the ack wait (a hung handler)', async () => {
      const dead = await open();
      await dead.enqueue([job(1)]);
      const taken = recorder(() => blocked());
      await dead.consume(taken.handler);
      await waitFor(() => taken.deliveries.length === 1);

      const alive = await open();
      const { handler, seen } = recorder();
      await alive.consume(handler);
      await waitFor(async () => seen().length === 1 && (await alive.depth()) === 0);
      expect(seen()).toEqual([[1, 2]]);
      expect(taken.seen()).toEqual([[1, 1]]);
    });

    it('exhausts a job whose last attempt never answered, without calling the handler again', async () => {
      const first = await open({ maxAttempts: 1 });
      await first.enqueue([job(1)]);
      const taken = recorder(() => blocked());
      await first.consume(taken.handler);
      await waitFor(() => taken.deliveries.length === 1);

      const second = await open({ maxAttempts: 1 });
      const exhausted: [JobDelivery<ContractPayload>, unknown][] = [];
      const { handler, seen } = recorder();
      await second.consume(handler, { onExhausted: async (delivery, error) => void exhausted.push([delivery, error]) });
      await waitFor(async () => exhausted.length === 1 && (await second.depth()) === 0);
      expect(seen()).toEqual([]);
      expect(exhausted[0][0].job.payload).toEqual({ n: 1 });
      expect((exhausted[0][1] as Error).name).toBe('LeaseExpiredError');
    });

    it('delivers the jobs of one type in enqueue order to a single consumer', async () => {
      const queue = await open();
      for (let batch = 0; batch < 4; batch++) {
        await queue.enqueue(Array.from({ length: 5 }, (_, i) => job(batch * 5 + i)));
      }
      const { handler, seen } = recorder();
      await queue.consume(handler);
      await waitFor(() => seen().length === 20);
      expect(seen().map(([n]) => n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    });

    it('runs at most `concurrency` handlers at once, and uses them all', async () => {
      const queue = await open();
      await queue.enqueue(Array.from({ length: 12 }, (_, i) => job(i)));
      let running = 0;
      let most = 0;
      const { handler, seen } = recorder(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 30));
        running -= 1;
      });
      await queue.consume(handler, { concurrency: 3 } satisfies JobConsumerOptions<ContractPayload>);
      await waitFor(async () => seen().length === 12 && (await queue.depth()) === 0);
      expect(most).toBe(3);
    });

    it('keeps a delivery whose handler waits alive past the ack wait, and takes other jobs in its slot meanwhile', async () => {
      const queue = await open();
      await queue.enqueue([job(1), job(2)]);
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { handler, seen } = recorder(async (delivery) => {
        if (delivery.job.payload.n === 1) await delivery.wait(gate);
      });
      await queue.consume(handler, { concurrency: 1 });
      // Job 2 runs while job 1 waits, although there is one slot.
      await waitFor(async () => seen().length === 2 && (await queue.depth()) === 1);
      // Twice the ack wait: a delivery not kept alive would have come again.
      await new Promise((resolve) => setTimeout(resolve, 2 * 1500));
      release();
      await waitFor(async () => (await queue.depth()) === 0);
      expect(seen()).toEqual([
        [1, 1],
        [2, 1],
      ]);
    });

    it('tells a delivery whether an earlier job of its account is still queued', async () => {
      const queue = await open();
      await queue.enqueue([job(1, { accountId: 'account-a' }), job(2, { accountId: 'account-b' }), job(3, { accountId: 'account-a' })]);
      const answers: [number, boolean][] = [];
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const { handler } = recorder(async (delivery) => {
        const n = delivery.job.payload.n;
        answers.push([n, await delivery.isFirstOfAccount()]);
        if (n === 1) await gate;
        if (n === 3) {
          await waitFor(async () => (await queue.depth()) === 1);
          answers.push([n, await delivery.isFirstOfAccount()]);
        }
      });
      await queue.consume(handler, { concurrency: 3 });
      await waitFor(() => answers.length === 3);
      release();
      await waitFor(async () => answers.length === 4 && (await queue.depth()) === 0);
      expect(answers.sort(([a], [b]) => a - b)).toEqual([
        [1, true],
        [2, true],
        [3, false],
        [3, true],
      ]);
    });

    it('tells a delivery whether it comes right after another delivery of its account', async () => {
      const queue = await open();
      await queue.enqueue([
        job(1, { accountId: 'account-a' }),
        job(2, { accountId: 'account-b' }),
        job(3, { accountId: 'account-a' }),
        job(4, { accountId: 'account-a' }),
      ]);
      const held = new Map<number, JobDelivery<ContractPayload>>();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      await queue.consume(
        async (delivery) => {
          held.set(delivery.job.payload.n, delivery);
          await gate;
        },
        { concurrency: 4 },
      );
      await waitFor(() => held.size === 4);
      const [one, two, three, four] = [1, 2, 3, 4].map((n) => held.get(n)!);
      const answers = {
        threeAfterOne: await three.isNextOfAccountAfter(one),
        fourAfterThree: await four.isNextOfAccountAfter(three),
        fourAfterOne: await four.isNextOfAccountAfter(one),
        oneAfterThree: await one.isNextOfAccountAfter(three),
        threeAfterTwo: await three.isNextOfAccountAfter(two),
      };
      release();
      await waitFor(async () => (await queue.depth()) === 0);
      expect(answers).toEqual({ threeAfterOne: true, fourAfterThree: true, fourAfterOne: false, oneAfterThree: false, threeAfterTwo: false });
    });

    it('close() waits for the handlers in flight', async () => {
      const queue = await open();
      await queue.enqueue([job(1)]);
      let release!: () => void;
      let finished = false;
      const { handler, deliveries } = recorder(async () => {
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
      });
      await queue.consume(handler);
      await waitFor(() => deliveries.length === 1);
      let closed = false;
      const closing = queue.close().then(() => (closed = true));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(closed).toBe(false);
      release();
      await closing;
      expect(finished).toBe(true);
    });

    it('keeps queued jobs across closing, a restart of the backing store and reopening', async () => {
      const before = await open();
      await before.enqueue([job(1), job(2)]);
      await before.enqueue([job(3)]);
      await before.close();
      await backend.restart();

      const after = await open();
      expect(await after.depth()).toBe(3);
      const { handler, seen } = recorder();
      await after.consume(handler);
      await waitFor(async () => seen().length === 3 && (await after.depth()) === 0);
      expect(seen()).toEqual([
        [1, 1],
        [2, 1],
        [3, 1],
      ]);
    });
  });
}

/** Polls `condition` every 10 ms; fails after `timeoutMs` (a deadline for a stuck queue, not a timing assertion). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
