import { join } from 'node:path';
import { StorageUnavailableError } from '@funnel/eventstore';
import { tempDir, type TempDir } from '@funnel/testing';
import type Database from 'better-sqlite3';
import { contractHit } from './hits/hit-store.contract';
import { SqliteHitStore } from './hits/sqlite-hit-store';
import { EmbeddedJobQueue } from './queue/embedded-job-queue';

/** The store's own connection: holding it at its current page count stands in for a full disk. */
function fill(store: object): void {
  const db = (store as { db: Database.Database }).db;
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
}

describe('the reporting SQLite stores on a full disk', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('reporting-full')));
  afterEach(() => dir.remove());

  it('the hit warehouse refuses an ingest with 507 STORE.FULL', async () => {
    const store = new SqliteHitStore({ filename: join(dir.path, 'reporting.sqlite') });
    try {
      await store.insertHits([contractHit(1)]);
      fill(store);
      const hits = Array.from({ length: 200 }, (_, i) => contractHit(i + 2));
      const failure = await store.insertHits(hits).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(StorageUnavailableError);
      expect(failure).toMatchObject({ status: 507, code: 'STORE.FULL', store: 'hit warehouse' });
      expect(await store.getHits('ACCOUNT00001', [hits[0].hitId])).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('the job queue refuses an enqueue with 507 STORE.FULL', async () => {
    const queue = new EmbeddedJobQueue({
      name: 'REPORTING_UPDATES',
      subjectPrefix: 'reporting.updates',
      ackWaitMs: 1000,
      filename: join(dir.path, 'reporting.sqlite'),
    });
    try {
      fill(queue);
      const jobs = Array.from({ length: 50 }, (_, i) => ({
        jobId: `job-${i}`,
        type: 'conversions',
        accountId: 'account-1',
        payload: { rows: 'x'.repeat(1000) },
        queuedAt: '2026-01-01T00:00:00.000Z',
      }));
      await expect(queue.enqueue(jobs)).rejects.toMatchObject({ status: 507, code: 'STORE.FULL', store: 'job queue' });
      expect(await queue.depth()).toBe(0);
    } finally {
      await queue.close();
    }
  });
});
