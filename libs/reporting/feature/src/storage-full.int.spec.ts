import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { tempDir, type TempDir } from '@funnel/testing';
import type Database from 'better-sqlite3';
import { EmbeddedJobQueue } from './queue/embedded-job-queue';

/** The store's own connection: holding it at its current page count stands in for a full disk. */
function fill(store: object): void {
  const db = (store as { db: Database.Database }).db;
  db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
}

describe('the reporting stores on a full disk', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('reporting-full')));
  afterEach(() => dir.remove());

  it('the hit warehouse (DuckDB) refuses an ingest with 507 STORE.FULL and keeps what it stored before', () => {
    // A child process limited to 4 MB per file (ulimit -f, in KB) stands in for a full disk: its writes past it fail (EFBIG).
    const root = join(__dirname, '..', '..', '..', '..');
    const fixture = join(__dirname, 'hits', 'duckdb', 'fixtures', 'fill-warehouse.fixture.ts');
    const out = execFileSync('sh', ['-c', `ulimit -f 4096; exec "${process.execPath}" -r "${join(root, 'tools', 'register.js')}" "${fixture}" "${dir.path}"`], {
      encoding: 'utf8',
      cwd: root,
    });
    const result = JSON.parse(out.trim().split('\n').pop()!);
    expect(result).toMatchObject({
      failure: { name: 'StorageUnavailableError', status: 507, code: 'STORE.FULL', store: 'hit warehouse' },
      isStorageError: true,
      failedBatchStored: 0,
      firstBatchStored: 1,
    });
    expect(result.stored).toBeGreaterThan(0);
  }, 60_000);

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
