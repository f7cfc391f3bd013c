import { randomUUID } from 'node:crypto';
import {
  START_POSITION,
  WrongExpectedRevisionError,
  comparePositions,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type SubscribeToAllOptions,
  type Subscription,
} from './event-store.port';

/**
 * The behaviour every EventStore adapter must show. Call it from an adapter's spec file; it only
 * touches jest's globals when called, so exporting it from the library costs production nothing.
 *
 * Each test uses its own stream-name prefix, so adapters whose log is shared between tests (one
 * EventStoreDB server) pass as well as ones that get a fresh store per test.
 */
export function describeEventStoreContract(adapterName: string, factory: () => Promise<{ store: EventStore; cleanup(): Promise<void> }>): void {
  describe(`EventStore contract: ${adapterName}`, () => {
    let store: EventStore;
    let cleanup: () => Promise<void>;
    let prefix: string;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      // Letters only: a fresh namespace per test that no other test's prefix starts with.
      prefix = `c${randomUUID().replace(/-/g, '')}`;
    });

    afterEach(async () => {
      await cleanup();
    });

    const stream = (name: string) => `${prefix}-${name}`;
    const event = (type: string, data: Record<string, unknown> = {}, extra: Partial<NewEvent> = {}): NewEvent => ({
      type,
      data,
      ...extra,
    });

    describe('append and readStream', () => {
      it('round-trips events with ids, types, data, revisions and recorded time', async () => {
        const before = Date.now();
        const id = randomUUID();
        const data = { name: 'Spring sale ✓', count: 3, ratio: 0.5, active: true, none: null, tags: ['a', 'b'], nested: { x: 1 } };
        const result = await store.append(stream('asset-1'), [event('AssetCreated', data, { id }), event('AssetRenamed', { name: 'b' })]);

        expect(result.nextExpectedRevision).toBe(1);
        const read = await store.readStream(stream('asset-1'));
        expect(read).toHaveLength(2);
        expect(read[0]).toMatchObject({ id, streamName: stream('asset-1'), type: 'AssetCreated', revision: 0, data });
        expect(read[1]).toMatchObject({ streamName: stream('asset-1'), type: 'AssetRenamed', revision: 1, data: { name: 'b' } });
        expect(read[1].id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        expect(read[1].id).not.toBe(id);
        for (const recorded of read) {
          expect(recorded.recordedAt).toBeInstanceOf(Date);
          expect(Math.abs(recorded.recordedAt.getTime() - before)).toBeLessThan(60_000);
        }
      });

      it('round-trips metadata, and gives {} when none was written', async () => {
        const metadata = {
          accountId: 'acc-1',
          actorId: 'user-1',
          correlationId: randomUUID(),
          causationId: randomUUID(),
          occurredAt: '2024-05-01T10:00:00.000Z',
          schemaVersion: 2,
          extra: { nested: ['x', 1] },
        };
        await store.append(stream('meta'), [event('WithMetadata', {}, { metadata }), event('WithoutMetadata')]);

        const [withMetadata, withoutMetadata] = await store.readStream(stream('meta'));
        expect(withMetadata.metadata).toEqual(metadata);
        expect(withoutMetadata.metadata).toEqual({});
      });

      it('returns [] for a stream that does not exist', async () => {
        await expect(store.readStream(stream('missing'))).resolves.toEqual([]);
      });

      it('reads from a revision and at most maxCount events', async () => {
        await store.append(
          stream('paged'),
          [0, 1, 2, 3, 4].map((n) => event('Counted', { n })),
        );

        const read = await store.readStream(stream('paged'), { fromRevision: 1, maxCount: 3 });
        expect(read.map((e) => e.revision)).toEqual([1, 2, 3]);
        expect(read.map((e) => e.data['n'])).toEqual([1, 2, 3]);
        await expect(store.readStream(stream('paged'), { fromRevision: 5 })).resolves.toEqual([]);
      });

      it('rejects an append without events', async () => {
        await expect(store.append(stream('empty'), [])).rejects.toThrow();
      });
    });

    describe('expected revision', () => {
      async function expectConflict(attempt: Promise<unknown>, streamName: string, actual: number | 'no_stream'): Promise<void> {
        const error = await attempt.then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect(error).toMatchObject({ streamName, actual, code: 'EVENTSTORE.WRONG_EXPECTED_REVISION' });
      }

      it('any: appends to a new and to an existing stream', async () => {
        await expect(store.append(stream('any'), [event('A')], { expectedRevision: 'any' })).resolves.toMatchObject({ nextExpectedRevision: 0 });
        await expect(store.append(stream('any'), [event('B')])).resolves.toMatchObject({ nextExpectedRevision: 1 });
      });

      it('no_stream: creates a stream, and conflicts once it exists', async () => {
        await expect(store.append(stream('new'), [event('A'), event('B')], { expectedRevision: 'no_stream' })).resolves.toMatchObject({
          nextExpectedRevision: 1,
        });
        await expectConflict(store.append(stream('new'), [event('C')], { expectedRevision: 'no_stream' }), stream('new'), 1);
      });

      it('stream_exists: appends to an existing stream, and conflicts on a missing one', async () => {
        await store.append(stream('exists'), [event('A')]);
        await expect(store.append(stream('exists'), [event('B')], { expectedRevision: 'stream_exists' })).resolves.toMatchObject({
          nextExpectedRevision: 1,
        });
        await expectConflict(store.append(stream('absent'), [event('A')], { expectedRevision: 'stream_exists' }), stream('absent'), 'no_stream');
      });

      it('exact: appends at the current revision, and conflicts behind it or on a missing stream', async () => {
        await store.append(stream('exact'), [event('A'), event('B')]);
        await expect(store.append(stream('exact'), [event('C')], { expectedRevision: 1 })).resolves.toMatchObject({
          nextExpectedRevision: 2,
        });
        await expectConflict(store.append(stream('exact'), [event('D')], { expectedRevision: 1 }), stream('exact'), 2);
        await expectConflict(store.append(stream('exact-absent'), [event('A')], { expectedRevision: 0 }), stream('exact-absent'), 'no_stream');
      });

      it('writes nothing when it conflicts', async () => {
        await store.append(stream('untouched'), [event('A')]);
        await expect(store.append(stream('untouched'), [event('B'), event('C')], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(
          WrongExpectedRevisionError,
        );
        expect((await store.readStream(stream('untouched'))).map((e) => e.type)).toEqual(['A']);
      });

      it('lets exactly one of several concurrent appends at the same revision win', async () => {
        await store.append(stream('race'), [event('Created')]);
        const attempts = await Promise.allSettled(
          Array.from({ length: 8 }, (_, n) => store.append(stream('race'), [event('Updated', { n })], { expectedRevision: 0 })),
        );

        const winners = attempts.filter((a) => a.status === 'fulfilled');
        const losers = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
        expect(winners).toHaveLength(1);
        for (const loser of losers) expect(loser.reason).toMatchObject({ name: 'WrongExpectedRevisionError', actual: 1 });
        expect(await store.readStream(stream('race'))).toHaveLength(2);
      });

      it('lets exactly one of several concurrent creations win', async () => {
        const attempts = await Promise.allSettled(
          Array.from({ length: 8 }, (_, n) => store.append(stream('create-race'), [event('Created', { n })], { expectedRevision: 'no_stream' })),
        );

        expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readStream(stream('create-race'))).toHaveLength(1);
      });

      it('takes concurrent appends to many streams, each checked on its own: a lost race among them fails alone', async () => {
        await store.append(stream('contested'), [event('Created')]);
        const creations = Array.from({ length: 20 }, (_, n) =>
          store.append(stream(`many-${n}`), [event('Created', { n }), event('Named', { n })], { expectedRevision: 'no_stream' }),
        );
        const racers = Array.from({ length: 3 }, (_, n) => store.append(stream('contested'), [event('Updated', { n })], { expectedRevision: 0 }));
        const behind = store.append(stream('contested'), [event('Stale')], { expectedRevision: 5 });
        const [created, raced, stale] = await Promise.all([
          Promise.allSettled(creations),
          Promise.allSettled(racers),
          behind.then(
            () => undefined,
            (error: unknown) => error,
          ),
        ]);

        expect(created.map((c) => c.status)).toEqual(created.map(() => 'fulfilled'));
        for (const [n, c] of created.entries()) {
          const appended = await store.readStream(stream(`many-${n}`));
          expect(appended.map((e) => [e.type, e.data.n, e.revision])).toEqual([
            ['Created', n, 0],
            ['Named', n, 1],
          ]);
          expect((c as PromiseFulfilledResult<{ nextExpectedRevision: number; position: unknown }>).value).toMatchObject({
            nextExpectedRevision: 1,
            position: appended[1].position,
          });
        }
        expect(raced.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const lost of raced.filter((r): r is PromiseRejectedResult => r.status === 'rejected')) {
          expect(lost.reason).toBeInstanceOf(WrongExpectedRevisionError);
          expect(lost.reason).toMatchObject({ expected: 0, actual: 1 });
        }
        expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
        expect((await store.readStream(stream('contested'))).map((e) => e.type)).toEqual(['Created', 'Updated']);
      });
    });

    describe('appendMany', () => {
      it('appends to each stream in order with its expected revision, answering each result', async () => {
        await store.append(stream('m1'), [event('Created')]);
        const results = await store.appendMany([
          { streamName: stream('m1'), events: [event('Archived')], options: { expectedRevision: 0 } },
          { streamName: stream('m2'), events: [event('Created'), event('Archived')], options: { expectedRevision: 'no_stream' } },
          { streamName: stream('m3'), events: [event('Created')] },
        ]);
        expect(results.map((r) => r.nextExpectedRevision)).toEqual([1, 1, 0]);
        expect(comparePositions(results[0].position, results[1].position)).toBeLessThan(0);
        expect(comparePositions(results[1].position, results[2].position)).toBeLessThan(0);
        for (const [name, types] of [
          ['m1', ['Created', 'Archived']],
          ['m2', ['Created', 'Archived']],
          ['m3', ['Created']],
        ] as const) {
          expect((await store.readStream(stream(name))).map((e) => e.type)).toEqual(types);
        }
        expect(await store.appendMany([])).toEqual([]);
      });

      it('stops at the first append that fails: those before it are written, it and those after it are not, and it rejects with its error', async () => {
        for (const name of ['s1', 's2', 's3']) await store.append(stream(name), [event('Created')]);
        const failure = await store
          .appendMany([
            { streamName: stream('s1'), events: [event('Archived')], options: { expectedRevision: 0 } },
            { streamName: stream('s2'), events: [event('Archived')], options: { expectedRevision: 5 } },
            { streamName: stream('s3'), events: [event('Archived')], options: { expectedRevision: 0 } },
          ])
          .catch((error: unknown) => error);
        expect(failure).toBeInstanceOf(WrongExpectedRevisionError);
        expect(failure).toMatchObject({ streamName: stream('s2'), expected: 5, actual: 0 });
        expect((await store.readStream(stream('s1'))).map((e) => e.type)).toEqual(['Created', 'Archived']);
        expect((await store.readStream(stream('s2'))).map((e) => e.type)).toEqual(['Created']);
        expect((await store.readStream(stream('s3'))).map((e) => e.type)).toEqual(['Created']);
      });
    });

    describe('global positions', () => {
      it('strictly increase in append order, across streams', async () => {
        await store.append(stream('a'), [event('A0')]);
        await store.append(stream('b'), [event('B0'), event('B1')]);
        await store.append(stream('a'), [event('A1')]);

        const a = await store.readStream(stream('a'));
        const b = await store.readStream(stream('b'));
        const inAppendOrder = [a[0], b[0], b[1], a[1]];
        for (let i = 1; i < inAppendOrder.length; i++) {
          expect(comparePositions(inAppendOrder[i - 1].position, inAppendOrder[i].position)).toBe(-1);
          expect(comparePositions(inAppendOrder[i].position, inAppendOrder[i - 1].position)).toBe(1);
        }
        expect(comparePositions(START_POSITION, a[0].position)).toBe(-1);
      });

      it('an append reports a position its last event reaches and earlier appends do not', async () => {
        const first = await store.append(stream('p'), [event('One'), event('Two')]);
        const second = await store.append(stream('q'), [event('Three')]);

        const [, two] = await store.readStream(stream('p'));
        const [three] = await store.readStream(stream('q'));
        expect(comparePositions(two.position, first.position)).toBeGreaterThanOrEqual(0);
        expect(comparePositions(two.position, second.position)).toBe(-1);
        expect(comparePositions(three.position, second.position)).toBeGreaterThanOrEqual(0);
      });

      it('headPosition is the position of the newest event', async () => {
        const before = await store.headPosition();
        await store.append(stream('head'), [event('A'), event('B')]);

        const head = await store.headPosition();
        const [, newest] = await store.readStream(stream('head'));
        expect(head).toEqual(newest.position);
        expect(comparePositions(head, before)).toBe(1);
      });

      it('countEvents counts what a subscription from a position with those prefixes has yet to deliver, up to the limit', async () => {
        // From the head rather than the start: an EventStoreDB log may hold other tests' events.
        const before = await store.headPosition();
        await store.append(stream('tag-1'), [event('A'), event('B')]);
        await store.append(stream('user-1'), [event('C')]);
        await store.append(stream('tag-2'), [event('D')]);
        const [, second] = await store.readStream(stream('tag-1'));
        const tags = [stream('tag-')];

        expect(await store.countEvents({ after: before, streamNamePrefixes: [prefix], limit: 100 })).toBe(4);
        expect(await store.countEvents({ after: before, streamNamePrefixes: tags, limit: 100 })).toBe(3);
        expect(await store.countEvents({ after: second.position, streamNamePrefixes: tags, limit: 100 })).toBe(1);
        expect(await store.countEvents({ after: second.position, streamNamePrefixes: [stream('user-'), stream('tag-')], limit: 100 })).toBe(2);
        expect(await store.countEvents({ after: before, streamNamePrefixes: tags, limit: 2 })).toBe(2);
        expect(await store.countEvents({ after: await store.headPosition(), streamNamePrefixes: [prefix], limit: 100 })).toBe(0);
      });
    });

    describe('subscribeToAll', () => {
      it('catches up on existing events, then delivers live ones, in order and exactly once', async () => {
        await store.append(stream('x'), [event('X0'), event('X1')]);
        await store.append(stream('y'), [event('Y0')]);

        const seen = collect(store, { streamNamePrefixes: [prefix] });
        await seen.subscription.caughtUp;
        expect(seen.types()).toEqual(['X0', 'X1', 'Y0']);
        expect(seen.caughtUpCalls).toBe(1);

        await store.append(stream('x'), [event('X2')]);
        await store.append(stream('y'), [event('Y1'), event('Y2')]);
        await eventually(() => seen.events.length >= 6, 'the live events');
        await settle();

        expect(seen.types()).toEqual(['X0', 'X1', 'Y0', 'X2', 'Y1', 'Y2']);
        expect(new Set(seen.events.map((e) => e.id)).size).toBe(6);
        expectAscending(seen.events);
        expect(seen.caughtUpCalls).toBe(1);
        expect(seen.errors).toEqual([]);
      });

      it('delivers the same records readStream returns', async () => {
        await store.append(stream('same'), [event('A', { n: 1 }, { metadata: { accountId: 'acc-1' } }), event('B', { n: 2 })]);

        const seen = collect(store, { streamNamePrefixes: [prefix] });
        await seen.subscription.caughtUp;
        expect(seen.events).toEqual(await store.readStream(stream('same')));
      });

      it('catches up on an empty selection', async () => {
        const seen = collect(store, { streamNamePrefixes: [`${prefix}-nothing`] });
        await seen.subscription.caughtUp;
        expect(seen.caughtUpCalls).toBe(1);
        expect(seen.events).toEqual([]);
      });

      it('from a position delivers only later events', async () => {
        await store.append(stream('from'), [event('E0'), event('E1'), event('E2')]);
        const all = collect(store, { streamNamePrefixes: [prefix] });
        await all.subscription.caughtUp;
        await all.subscription.stop();

        const later = collect(store, { streamNamePrefixes: [prefix], from: all.events[1].position });
        await later.subscription.caughtUp;
        expect(later.types()).toEqual(['E2']);
        await store.append(stream('from'), [event('E3')]);
        await eventually(() => later.events.length >= 2, 'the live event');
        expect(later.types()).toEqual(['E2', 'E3']);
      });

      it('from START_POSITION delivers everything', async () => {
        await store.append(stream('start'), [event('S0')]);
        const seen = collect(store, { streamNamePrefixes: [prefix], from: START_POSITION });
        await seen.subscription.caughtUp;
        expect(seen.types()).toEqual(['S0']);
      });

      it('filters by stream-name prefixes', async () => {
        await store.append(`${prefix}a-1`, [event('A1')]);
        await store.append(`${prefix}b-1`, [event('B1')]);
        await store.append(`${prefix}c-1`, [event('C1')]);

        const onlyA = collect(store, { streamNamePrefixes: [`${prefix}a-`] });
        const aAndC = collect(store, { streamNamePrefixes: [`${prefix}a-`, `${prefix}c-`] });
        await Promise.all([onlyA.subscription.caughtUp, aAndC.subscription.caughtUp]);
        await store.append(`${prefix}b-2`, [event('B2')]);
        await store.append(`${prefix}a-2`, [event('A2')]);
        await eventually(() => onlyA.events.length >= 2 && aAndC.events.length >= 3, 'the live events');
        await settle();

        expect(onlyA.types()).toEqual(['A1', 'A2']);
        expect(aAndC.types()).toEqual(['A1', 'C1', 'A2']);
      });

      it('delivers in batches no larger than batchSize, one handler call at a time', async () => {
        await store.append(
          stream('batched'),
          Array.from({ length: 25 }, (_, n) => event('Counted', { n })),
        );
        let active = 0;
        let maxActive = 0;

        const seen = collect(store, {
          streamNamePrefixes: [prefix],
          batchSize: 10,
          beforeEach: async () => {
            active += 1;
            maxActive = Math.max(maxActive, active);
            await sleep(5);
            active -= 1;
          },
        });
        await seen.subscription.caughtUp;

        expect(seen.events.map((e) => e.data['n'])).toEqual(Array.from({ length: 25 }, (_, n) => n));
        expect(Math.max(...seen.batchSizes)).toBeLessThanOrEqual(10);
        expect(maxActive).toBe(1);
      });

      it('stops and reports when the handler fails', async () => {
        await store.append(stream('failing'), [event('First')]);
        const failure = new Error('projection failed');
        let calls = 0;

        const seen = collect(store, {
          streamNamePrefixes: [prefix],
          beforeEach: () => {
            calls += 1;
            throw failure;
          },
        });
        await eventually(() => seen.errors.length > 0, 'the reported error');
        await expect(seen.subscription.caughtUp).rejects.toBe(failure);
        await store.append(stream('failing'), [event('Second')]);
        await settle();

        expect(seen.errors).toEqual([failure]);
        expect(calls).toBe(1);
        expect(seen.caughtUpCalls).toBe(0);
      });

      it('stop() stops delivery', async () => {
        const seen = collect(store, { streamNamePrefixes: [prefix] });
        await seen.subscription.caughtUp;
        await store.append(stream('stopped'), [event('Before')]);
        await eventually(() => seen.events.length >= 1, 'the first event');

        await seen.subscription.stop();
        await seen.subscription.stop();
        await store.append(stream('stopped'), [event('After')]);
        await settle();

        expect(seen.types()).toEqual(['Before']);
        expect(seen.errors).toEqual([]);
      });

      it('stop() from inside the handler returns and ends delivery', async () => {
        await store.append(stream('self-stop'), [event('A')]);
        await store.append(stream('self-stop'), [event('B')]);
        const delivered: string[] = [];
        // The handler refers to the subscription: adapters must not deliver before subscribeToAll returns.
        const subscription: Subscription = store.subscribeToAll({
          streamNamePrefixes: [prefix],
          batchSize: 1,
          onEvents: async (events) => {
            delivered.push(...events.map((e) => e.type));
            await subscription.stop();
          },
        });

        await eventually(() => delivered.length >= 1, 'the first event');
        await subscription.stop();
        await settle();
        expect(delivered).toEqual(['A']);
      });
    });
  });
}

interface Collected {
  subscription: Subscription;
  events: RecordedEvent[];
  batchSizes: number[];
  errors: Error[];
  readonly caughtUpCalls: number;
  types(): string[];
}

function collect(
  store: EventStore,
  options: Omit<SubscribeToAllOptions, 'onEvents' | 'onCaughtUp' | 'onError'> & {
    beforeEach?: (events: RecordedEvent[]) => Promise<void> | void;
  },
): Collected {
  const { beforeEach: runFirst, ...subscribeOptions } = options;
  let caughtUpCalls = 0;
  const collected = {
    events: [] as RecordedEvent[],
    batchSizes: [] as number[],
    errors: [] as Error[],
    get caughtUpCalls() {
      return caughtUpCalls;
    },
    types() {
      return collected.events.map((e) => e.type);
    },
  };
  const subscription = store.subscribeToAll({
    ...subscribeOptions,
    onEvents: async (events) => {
      await runFirst?.(events);
      collected.batchSizes.push(events.length);
      collected.events.push(...events);
    },
    onCaughtUp: () => {
      caughtUpCalls += 1;
    },
    onError: (error) => {
      collected.errors.push(error);
    },
  });
  return Object.assign(collected, { subscription });
}

function expectAscending(events: RecordedEvent[]): void {
  for (let i = 1; i < events.length; i++) {
    expect(comparePositions(events[i - 1].position, events[i].position)).toBe(-1);
  }
}

async function eventually(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(10);
  }
}

/** Long enough for a wrongly delivered or duplicated event to show up (polling adapters included). */
function settle(): Promise<void> {
  return sleep(400);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
