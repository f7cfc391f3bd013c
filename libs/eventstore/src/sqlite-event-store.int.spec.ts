import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreContract } from './event-store.contract';
import { MaxAppendSizeExceededError, START_POSITION, type AppendResult, type RecordedEvent } from './event-store.port';
import { SqliteEventStore } from './sqlite-event-store';
import { StorageUnavailableError } from './storage-health';
import type Database from 'better-sqlite3';

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'sqlite-event-store-'));
}

describeEventStoreContract('SQLite', async () => {
  const dir = tempDir();
  const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SqliteEventStore', () => {
  let dir: string;
  const stores: SqliteEventStore[] = [];
  const open = (filename: string, maxAppendBytes?: number) => {
    const store = new SqliteEventStore({ filename, maxAppendBytes });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dir = tempDir();
  });

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees appends made through another connection to the same file (another process)', async () => {
    const filename = join(dir, 'shared.sqlite');
    const service = open(filename);
    const cli = open(filename);
    await cli.append('asset-1', [{ type: 'Existing', data: {} }]);

    const seen: RecordedEvent[] = [];
    const subscription = service.subscribeToAll({ onEvents: (events) => void seen.push(...events) });
    await subscription.caughtUp;
    await cli.append('asset-1', [{ type: 'FromTheCli', data: { n: 1 } }]);
    await cli.append('asset-2', [{ type: 'FromTheCli', data: { n: 2 } }]);

    const deadline = Date.now() + 5000;
    while (seen.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.map((e) => [e.streamName, e.type])).toEqual([
      ['asset-1', 'Existing'],
      ['asset-1', 'FromTheCli'],
      ['asset-2', 'FromTheCli'],
    ]);
    expect(seen.map((e) => e.data)).toEqual([{}, { n: 1 }, { n: 2 }]);
    // The expected-revision check also holds across connections.
    await expect(service.append('asset-1', [{ type: 'Late', data: {} }], { expectedRevision: 0 })).rejects.toMatchObject({
      actual: 1,
    });
  });

  it('gives a live subscriber each event data, whether it reads it at once or after many later appends', async () => {
    const store = open(join(dir, 'live.sqlite'));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({
      onEvents: async (events) => {
        seen.push(...events);
        // The first page waits while 300 more events are appended: its later pages are older than the recent ones kept.
        if (seen.length === events.length) await held;
      },
    });
    await subscription.caughtUp;
    await store.append('big-0', [{ type: 'Big', data: { n: 0, text: 'x'.repeat(1000) } }]);
    for (let n = 1; n <= 300; n++) await store.append(`big-${n}`, [{ type: 'Big', data: { n, text: 'x'.repeat(1000) } }]);
    release();
    const deadline = Date.now() + 5000;
    while (seen.length < 301 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 301 }, (_, n) => n));
    expect(seen.every((e) => (e.data as { text: string }).text.length === 1000)).toBe(true);
  });

  it('hands shared data (shareData) to live subscribers as the frozen objects appended, and other data as copies', async () => {
    const store = open(join(dir, 'shared-data.sqlite'));
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ onEvents: (events) => void seen.push(...events) });
    await subscription.caughtUp;
    const shared = { record: { nodes: [{ idNode: 'a' }] } };
    const copied = { record: { nodes: [{ idNode: 'b' }] } };
    await store.append('shared-1', [{ type: 'Big', data: shared }], { shareData: true });
    await store.append('copied-1', [{ type: 'Big', data: copied }]);
    const deadline = Date.now() + 5000;
    while (seen.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen[0].data).toBe(shared);
    expect(Object.isFrozen(shared.record.nodes[0])).toBe(true);
    expect(() => {
      (shared.record.nodes[0] as { idNode: string }).idNode = 'changed';
    }).toThrow(TypeError);
    expect(seen[1].data).toEqual(copied);
    expect(seen[1].data).not.toBe(copied);
    expect(Object.isFrozen(copied)).toBe(false);
    // Reads of the stream are always copies of what is stored.
    expect((await store.readStream('shared-1'))[0].data).not.toBe(shared);
  });

  it('keeps events across reopening the file', async () => {
    const filename = join(dir, 'durable.sqlite');
    const first = open(filename);
    const written = await first.append('asset-1', [{ type: 'Created', data: { name: 'a' }, metadata: { accountId: 'acc' } }]);
    await first.close();

    const reopened = open(filename);
    expect(await reopened.readStream('asset-1')).toMatchObject([{ type: 'Created', data: { name: 'a' }, metadata: { accountId: 'acc' } }]);
    expect(await reopened.headPosition()).toEqual(written.position);
  });

  it('uses the row id as commit and prepare, and reports the last event of an append', async () => {
    const store = open(':memory:');
    expect(await store.headPosition()).toEqual(START_POSITION);
    const first = await store.append('s', [
      { type: 'A', data: {} },
      { type: 'B', data: {} },
    ]);
    const second = await store.append('t', [{ type: 'C', data: {} }]);

    expect(first.position).toEqual({ commit: 2n, prepare: 2n });
    expect(second.position).toEqual({ commit: 3n, prepare: 3n });
    expect((await store.readStream('s')).map((e) => e.position.commit)).toEqual([1n, 2n]);
  });

  it('with maxAppendBytes, refuses an append whose events are larger, appending none of them, as EventStoreDB does over MaxAppendSize', async () => {
    const store = open(':memory:', 1000);
    const event = (chars: number) => ({ type: 'E', data: { text: 'x'.repeat(chars) }, metadata: { accountId: 'acc' } });
    // data {"text":"..."} is 11 bytes around the text, metadata {"accountId":"acc"} 19: 970 + 30 = 1000 fits exactly.
    await store.append('fits', [event(970)]);
    const refused = store.append('large', [event(500), event(471)], { expectedRevision: 'no_stream' });
    await expect(refused).rejects.toBeInstanceOf(MaxAppendSizeExceededError);
    await expect(refused).rejects.toMatchObject({ streamName: 'large', size: 1031, maxAppendSize: 1000, code: 'EVENTSTORE.MAX_APPEND_SIZE_EXCEEDED' });
    expect(await store.readStream('large')).toEqual([]);
    // Not counted: the same events in two appends are taken.
    await store.append('large', [event(500)], { expectedRevision: 'no_stream' });
    await store.append('large', [event(471)], { expectedRevision: 0 });
    expect((await store.readStream('large')).map((e) => e.revision)).toEqual([0, 1]);
  });

  it('filters prefixes literally, with no LIKE or GLOB wildcards', async () => {
    const store = open(':memory:');
    await store.append('a%_*-1', [{ type: 'Literal', data: {} }]);
    await store.append('abcd-1', [{ type: 'WouldMatchAWildcard', data: {} }]);
    await store.append('é-1', [{ type: 'Accented', data: {} }]);

    const seen: string[] = [];
    const subscription = store.subscribeToAll({
      streamNamePrefixes: ['a%_*', 'é-'],
      onEvents: (events) => void seen.push(...events.map((e) => e.type)),
    });
    await subscription.caughtUp;
    expect(seen).toEqual(['Literal', 'Accented']);
  });

  it('close() stops subscriptions and later calls fail', async () => {
    const store = open(join(dir, 'closing.sqlite'));
    const errors: Error[] = [];
    const subscription = store.subscribeToAll({ onEvents: () => undefined, onError: (e) => void errors.push(e) });
    await subscription.caughtUp;
    await store.close();

    await expect(store.append('s', [{ type: 'A', data: {} }])).rejects.toThrow();
    expect(() => store.subscribeToAll({ onEvents: () => undefined })).toThrow();
    expect(errors).toEqual([]);
  });

  describe('group commit', () => {
    it('commits the appends of one event-loop turn together: a live subscriber gets them as one batch, in the order they were made', async () => {
      const store = open(join(dir, 'group.sqlite'));
      const batches: RecordedEvent[][] = [];
      const subscription = store.subscribeToAll({ onEvents: (events) => void batches.push(events) });
      await subscription.caughtUp;

      // Each from a callback of its own, as requests read from different sockets in one poll of the event loop.
      const results = await Promise.all(
        Array.from(
          { length: 10 },
          (_, n) =>
            new Promise<AppendResult>((resolve, reject) =>
              setImmediate(() => store.append(`tag-${n}`, [{ type: 'Created', data: { n } }], { expectedRevision: 'no_stream' }).then(resolve, reject)),
            ),
        ),
      );
      const deadline = Date.now() + 5000;
      while (batches.flat().length < 10 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));

      expect(batches.map((batch) => batch.map((e) => e.data.n))).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
      expect(results.map((r) => r.position.commit)).toEqual(batches[0].map((e) => e.position.commit));
      // Appends of a later turn form a group of their own.
      await store.append('tag-10', [{ type: 'Created', data: { n: 10 } }]);
      while (batches.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(batches.map((batch) => batch.length)).toEqual([10, 1]);
    });

    it('an append that fails for its own events writes none of them, and the others of its group are written', async () => {
      const store = open(join(dir, 'one-fails.sqlite'));
      const before = store.append('before', [{ type: 'Fine', data: {} }]);
      // A type the table refuses (NOT NULL), after an event it would take: the append's savepoint drops both.
      const broken = store.append('broken', [
        { type: 'Fine', data: {} },
        { type: null as unknown as string, data: {} },
      ]);
      const after = store.append('after', [{ type: 'Fine', data: {} }]);

      await expect(broken).rejects.toThrow(/NOT NULL/);
      await expect(before).resolves.toMatchObject({ nextExpectedRevision: 0 });
      await expect(after).resolves.toMatchObject({ nextExpectedRevision: 0 });
      expect(await store.readStream('broken')).toEqual([]);
      expect((await store.readStream('before')).map((e) => e.type)).toEqual(['Fine']);
      expect((await store.readStream('after')).map((e) => e.type)).toEqual(['Fine']);
    });

    it('appends to one stream in one group see each other: the second checks its revision against the first', async () => {
      const store = open(':memory:');
      const first = store.append('s', [{ type: 'A', data: {} }], { expectedRevision: 'no_stream' });
      const second = store.append('s', [{ type: 'B', data: {} }], { expectedRevision: 0 });
      const third = store.append('s', [{ type: 'C', data: {} }], { expectedRevision: 0 });
      await expect(first).resolves.toMatchObject({ nextExpectedRevision: 0 });
      await expect(second).resolves.toMatchObject({ nextExpectedRevision: 1 });
      await expect(third).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', expected: 0, actual: 1 });
      expect((await store.readStream('s')).map((e) => e.type)).toEqual(['A', 'B']);
    });

    it('appendMany commits its appends as one group however many turns it serializes them in: one batch to a live subscriber, one recorded time', async () => {
      const store = open(join(dir, 'many.sqlite'));
      const batches: RecordedEvent[][] = [];
      const subscription = store.subscribeToAll({ onEvents: (events) => void batches.push(events) });
      await subscription.caughtUp;
      const count = 120;
      const results = await store.appendMany(
        Array.from({ length: count }, (_, n) => ({
          streamName: `tag-${n}`,
          events: [{ type: 'Archived', data: { n } }],
          options: { expectedRevision: 'no_stream' as const },
        })),
      );
      const deadline = Date.now() + 5000;
      while (batches.flat().length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(batches).toHaveLength(1);
      expect(batches[0].map((e) => e.data.n)).toEqual(Array.from({ length: count }, (_, n) => n));
      expect(results.map((r) => r.position.commit)).toEqual(batches[0].map((e) => e.position.commit));
      expect(new Set(batches[0].map((e) => e.recordedAt.getTime())).size).toBe(1);
    });

    it('appendMany stops at an append refused for its size: those before it are written, it and those after are not', async () => {
      const store = open(':memory:', 100);
      const failure = await store
        .appendMany([
          { streamName: 'a', events: [{ type: 'E', data: {} }] },
          { streamName: 'b', events: [{ type: 'E', data: { text: 'x'.repeat(200) } }] },
          { streamName: 'c', events: [{ type: 'E', data: {} }] },
        ])
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(MaxAppendSizeExceededError);
      expect(failure).toMatchObject({ streamName: 'b' });
      expect((await store.readStream('a')).length).toBe(1);
      expect(await store.readStream('b')).toEqual([]);
      expect(await store.readStream('c')).toEqual([]);
    });

    it('close() commits the appends already made before it closes the file', async () => {
      const filename = join(dir, 'closing-with-appends.sqlite');
      const store = open(filename);
      const appended = store.append('s', [{ type: 'Last', data: { n: 1 } }]);
      await store.close();
      await expect(appended).resolves.toMatchObject({ nextExpectedRevision: 0 });
      expect((await open(filename).readStream('s')).map((e) => e.data)).toEqual([{ n: 1 }]);
    });
  });

  describe('when its storage refuses writes', () => {
    /** The store's own connection: its page limit stands in for a full disk, query_only for a read-only volume. */
    const connectionOf = (store: SqliteEventStore) => (store as unknown as { db: Database.Database }).db;
    const event = (n: number) => ({ type: 'Filled', data: { n, filler: 'x'.repeat(2000) } });

    it('answers a full disk with 507 STORE.FULL, is not writable until there is room again, then takes appends', async () => {
      const changes: (string | undefined)[] = [];
      const store = new SqliteEventStore({ filename: join(dir, 'full.sqlite'), onStorageChange: (failure) => changes.push(failure?.code) });
      stores.push(store);
      await store.append('s', [event(0)]);
      const db = connectionOf(store);
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      expect(store.storageWritable()).toBe(true);

      const failure = await store.append('s', [event(1)]).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({ status: 507, code: 'STORE.FULL', problem: 'full', driverCode: 'SQLITE_FULL' });
      expect((failure as Error).message).not.toContain(dir);
      expect(store.storageWritable()).toBe(false);
      expect(store.storageWritable()).toBe(false);

      db.pragma('max_page_count = 1000000');
      expect(store.storageWritable()).toBe(true);
      await store.append('s', [event(2)]);
      expect((await store.readStream('s')).map((e) => e.data.n)).toEqual([0, 2]);
      expect(changes).toEqual(['STORE.FULL', undefined]);
    });

    it('fails every append of a group the disk has no room for, writing none of them', async () => {
      const store = open(join(dir, 'full-group.sqlite'));
      await store.append('s', [event(0)]);
      const db = connectionOf(store);
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);

      const group = await Promise.allSettled(Array.from({ length: 5 }, (_, n) => store.append(`g-${n}`, [event(n)])));
      expect(group.map((g) => (g.status === 'rejected' ? (g.reason as StorageUnavailableError).code : g.status))).toEqual(Array(5).fill('STORE.FULL'));
      db.pragma('max_page_count = 1000000');
      for (let n = 0; n < 5; n++) expect(await store.readStream(`g-${n}`)).toEqual([]);
      expect(await store.readStream('s')).toHaveLength(1);
    });

    it('answers a read-only database with 503 STORE.UNAVAILABLE and a later successful append makes it writable again', async () => {
      const store = open(join(dir, 'read-only.sqlite'));
      const db = connectionOf(store);
      db.pragma('query_only = ON');
      await expect(store.append('s', [event(0)])).rejects.toMatchObject({ status: 503, code: 'STORE.UNAVAILABLE', problem: 'read-only' });
      expect(store.storageWritable()).toBe(false);
      db.pragma('query_only = OFF');
      await store.append('s', [event(1)]);
      expect(store.storageWritable()).toBe(true);
    });
  });
});
