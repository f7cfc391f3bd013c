import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
