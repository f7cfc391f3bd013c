import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEventStore } from './create-event-store';
import { EventStoreDbEventStore } from './eventstoredb-event-store';
import { SqliteEventStore } from './sqlite-event-store';

describe('createEventStore', () => {
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'create-event-store-'));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('uses SQLite in the data directory, creating it, when no URL is given', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const store = createEventStore({ dataDir });
    try {
      expect(store).toBeInstanceOf(SqliteEventStore);
      await store.append('s', [{ type: 'A', data: {} }]);
      expect(existsSync(join(dataDir, 'events.sqlite'))).toBe(true);
    } finally {
      await store.close();
    }
  });

  const modeOf = (path: string) => statSync(path).mode & 0o777;

  it('creates the data directory 0700 and the log with its -wal and -shm files 0600', async () => {
    const dataDir = join(dir, 'fresh');
    const store = createEventStore({ dataDir });
    try {
      await store.append('s', [{ type: 'A', data: {} }]);
      expect(modeOf(dataDir)).toBe(0o700);
      for (const file of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm']) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
    } finally {
      await store.close();
    }
  });

  it('tightens a data directory and log files an earlier run left readable by others', async () => {
    const dataDir = join(dir, 'old');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    const first = createEventStore({ dataDir });
    await first.append('s', [{ type: 'A', data: {} }]);
    await first.close();
    for (const file of ['events.sqlite', 'events.sqlite-wal']) {
      if (!existsSync(join(dataDir, file))) writeFileSync(join(dataDir, file), '');
      chmodSync(join(dataDir, file), 0o644);
    }
    chmodSync(dataDir, 0o755);

    const store = createEventStore({ dataDir });
    try {
      await store.append('s', [{ type: 'B', data: {} }]);
      expect(modeOf(dataDir)).toBe(0o700);
      for (const file of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm']) expect([file, modeOf(join(dataDir, file))]).toEqual([file, 0o600]);
      expect((await store.readStream('s')).map((event) => event.type)).toEqual(['A', 'B']);
    } finally {
      await store.close();
    }
  });

  it('leaves an existing directory that holds no log of ours as it is', async () => {
    const dataDir = join(dir, 'mounted');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    const store = createEventStore({ dataDir });
    await store.close();
    expect(modeOf(dataDir)).toBe(0o755);
    expect(modeOf(join(dataDir, 'events.sqlite'))).toBe(0o600);
  });

  it('honours fileName', async () => {
    const store = createEventStore({ dataDir: dir, fileName: 'other.sqlite', eventStoreUrl: '' });
    await store.close();
    expect(existsSync(join(dir, 'other.sqlite'))).toBe(true);
  });

  it('uses EventStoreDB when a URL is given, without touching the data directory', async () => {
    const dataDir = join(dir, 'unused');
    // The client connects lazily, so no server is needed to build and close it.
    const store = createEventStore({ eventStoreUrl: 'esdb://localhost:2113?tls=false', dataDir });
    await store.close();
    expect(store).toBeInstanceOf(EventStoreDbEventStore);
    expect(existsSync(dataDir)).toBe(false);
  });
});
