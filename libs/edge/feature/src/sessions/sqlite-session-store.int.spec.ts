import { readdirSync, statSync } from 'node:fs';
import * as workerThreads from 'node:worker_threads';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { tempDir } from '@funnel/testing';
import { describeSessionStoreContract, sampleSession } from './session-store.contract';
import { SqliteSessionStore } from './sqlite-session-store';
import { SESSION_STORE_FILE } from './session-config';
import { SessionStoreClosedError } from './session-store';
import { PackedRows, SqliteWriterThread, type WriterRows } from '@funnel/eventstore';

describeSessionStoreContract('embedded SQLite', async () => {
  const dir = tempDir('edge-sessions');
  const filename = join(dir.path, SESSION_STORE_FILE);
  return {
    open: async ({ ttlMs }) => new SqliteSessionStore({ filename, ttlMs }),
    cleanup: async () => dir.remove(),
  };
});

/** The TTL of the tests on the real clock: no session of theirs expires, however slow a loaded machine writes. */
const REAL_CLOCK_TTL_MS = 10 * 60_000;

describe('SqliteSessionStore', () => {
  const stores: SqliteSessionStore[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });
  const open = (filename: string, now: () => number, ttlMs = 1000) => {
    const store = new SqliteSessionStore({ filename, ttlMs, now, sweepIntervalMs: 0 });
    stores.push(store);
    return store;
  };

  it('answers a put to the next get at once, before the writer thread has written it', async () => {
    const filename = join(tempDir('edge-sessions').path, SESSION_STORE_FILE);
    const store = open(filename, Date.now, REAL_CLOCK_TTL_MS);
    const session = sampleSession();
    const written = store.put('ACC1', session);
    const next = { ...session, currentNode: 'N00000000002' };
    const rewritten = store.put('ACC1', next);
    expect(await store.get('ACC1', session.visitorId)).toEqual(next);
    await Promise.all([written, rewritten]);
    expect(await store.get('ACC1', session.visitorId)).toEqual(next);
    await store.close();
    expect(await open(filename, Date.now, REAL_CLOCK_TTL_MS).get('ACC1', session.visitorId)).toEqual(next);
  });

  it('writes the puts made while a write is under way together, in the next write, each resolving once written', async () => {
    const filename = join(tempDir('edge-sessions').path, SESSION_STORE_FILE);
    const store = open(filename, Date.now, REAL_CLOCK_TTL_MS);
    const run = SqliteWriterThread.prototype.run;
    // The rows of each write the store sends (packed into one string: their count).
    const writes: number[] = [];
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const spy = jest.spyOn(SqliteWriterThread.prototype, 'run').mockImplementation(async function (
      this: SqliteWriterThread,
      statement: string,
      rows: WriterRows,
    ) {
      writes.push(rows instanceof PackedRows ? rows.count : rows.length);
      if (writes.length === 1) await held;
      return run.call(this, statement, rows);
    });
    try {
      const turn = () => new Promise((resolve) => setImmediate(resolve));
      const visitor = (n: number) => ({ ...sampleSession(), visitorId: `VISITOR0000${n}` });
      const first = store.put('ACC1', visitor(1));
      await turn();
      await turn();
      // The first write is held: puts of three later turns wait for it.
      const later: Promise<void>[] = [];
      for (const n of [2, 3, 4]) {
        later.push(store.put('ACC1', visitor(n)));
        await turn();
      }
      expect(writes).toEqual([1]);
      release();
      await Promise.all([first, ...later]);
      expect(writes).toEqual([1, 3]);
      const reader = new Database(filename, { readonly: true });
      try {
        expect(reader.prepare('SELECT count(*) FROM edge_sessions').pluck().get()).toBe(4);
      } finally {
        reader.close();
      }
    } finally {
      release();
      spy.mockRestore();
    }
  });

  it('once closed, starts no writer thread and leaves its file as it was for a put, a get or a sweep', async () => {
    const dir = tempDir('edge-sessions');
    const filename = join(dir.path, SESSION_STORE_FILE);
    const store = open(filename, Date.now, REAL_CLOCK_TTL_MS);
    const kept = sampleSession();
    await store.put('ACC1', kept);
    await store.close();
    const files = () => readdirSync(dir.path).map((name) => [name, statSync(join(dir.path, name)).size, statSync(join(dir.path, name)).mtimeMs]);
    const before = files();
    const threads = jest.spyOn(workerThreads, 'Worker');
    try {
      await expect(store.put('ACC1', sampleSession())).rejects.toBeInstanceOf(SessionStoreClosedError);
      await expect(store.put('ACC1', { ...kept, currentNode: 'N00000000009' })).rejects.toBeInstanceOf(SessionStoreClosedError);
      await expect(store.get('ACC1', kept.visitorId)).rejects.toBeInstanceOf(SessionStoreClosedError);
      await expect(store.sweep()).rejects.toBeInstanceOf(SessionStoreClosedError);
      await new Promise((resolve) => setImmediate(resolve));
      expect(threads).not.toHaveBeenCalled();
    } finally {
      threads.mockRestore();
    }
    expect(files()).toEqual(before);
    expect(await open(filename, Date.now, REAL_CLOCK_TTL_MS).get('ACC1', kept.visitorId)).toEqual(kept);
  });

  it('keeps its file private to the service user', () => {
    const filename = join(tempDir('edge-sessions').path, SESSION_STORE_FILE);
    open(filename, Date.now, REAL_CLOCK_TTL_MS);
    expect(statSync(filename).mode & 0o777).toBe(0o600);
  });

  it('sweeps the expired sessions out of its file, in batches, and keeps the live ones', async () => {
    const filename = join(tempDir('edge-sessions').path, SESSION_STORE_FILE);
    let now = Date.UTC(2026, 0, 1);
    const store = open(filename, () => now);
    const expired = Array.from({ length: 1200 }, () => sampleSession());
    for (const session of expired) await store.put('ACC1', session);
    now += 600;
    const live = sampleSession();
    await store.put('ACC1', live);
    now += 500; // the first 1200 are 100 ms past their TTL, the last one has 500 ms left
    expect(await store.get('ACC1', expired[0].visitorId)).toBeNull();
    expect(await store.sweep()).toBe(1200);
    expect(await store.sweep()).toBe(0);
    expect(await store.get('ACC1', live.visitorId)).toEqual(live);

    // Nothing of the swept sessions comes back when the file is opened again.
    await store.close();
    const reopened = open(filename, () => now);
    expect(await reopened.get('ACC1', expired[1199].visitorId)).toBeNull();
    expect(await reopened.get('ACC1', live.visitorId)).toEqual(live);
  });

  it('sweeps on its own every SESSION_SWEEP_INTERVAL', async () => {
    const filename = join(tempDir('edge-sessions').path, SESSION_STORE_FILE);
    let now = Date.UTC(2026, 0, 1);
    const store = new SqliteSessionStore({ filename, ttlMs: 1000, now: () => now, sweepIntervalMs: 20 });
    stores.push(store);
    await store.put('ACC1', sampleSession());
    now += 2000;
    // The rows in the file, as another reader of it sees them.
    const rows = () => {
      const reader = new Database(filename, { readonly: true });
      try {
        return reader.prepare('SELECT count(*) FROM edge_sessions').pluck().get() as number;
      } finally {
        reader.close();
      }
    };
    expect(rows()).toBe(1);
    const deadline = Date.now() + 10_000;
    let left = rows();
    while (left !== 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = rows();
    }
    expect(left).toBe(0);
  });
});
