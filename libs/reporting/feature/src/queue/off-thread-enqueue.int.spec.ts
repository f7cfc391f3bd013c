import { join } from 'node:path';
import Database from 'better-sqlite3';
import { tempDir, type TempDir } from '@funnel/testing';
import { OffThreadEnqueue } from './off-thread-enqueue';

describe('OffThreadEnqueue', () => {
  let dir: TempDir;
  beforeEach(() => (dir = tempDir('off-thread-enqueue')));
  afterEach(() => dir.remove());

  it("rejects with the SQLite error's code, so the queue can tell a full disk (507) from other failures", async () => {
    const filename = join(dir.path, 'queue.sqlite');
    const db = new Database(filename);
    db.exec(
      'CREATE TABLE jobs (job_id TEXT PRIMARY KEY CHECK (length(job_id) < 3), type TEXT, account_id TEXT, queued_at TEXT, payload TEXT, a INTEGER, b INTEGER, c INTEGER)',
    );
    db.close();
    const writer = new OffThreadEnqueue({ filename, insertSql: 'INSERT INTO jobs VALUES (?, ?, ?, ?, ?, ?, ?, ?)', synchronous: 'NORMAL' });
    try {
      const job = { jobId: 'a-long-job-id', type: 'conversions', accountId: 'account-1', queuedAt: '2026-01-01T00:00:00.000Z', pieces: ['{"rows":', '[]}'] };
      await expect(writer.enqueue([job], Date.now(), 0)).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_CHECK' });
    } finally {
      await writer.close();
    }
  });
});
