import Database from 'better-sqlite3';
import { ensurePrivateFile, tightenFile } from './private-files';

/** `normal`: a commit survives a crash of the process; `full`: also a power loss (an fsync per commit). */
export type SqliteDurability = 'normal' | 'full';

/**
 * Opens a SQLite database that holds every account's data (the event log, the job queue, the hit
 * warehouse): the file 0600, and its -wal and -shm files, which follow the database's mode (files
 * an earlier version left with the default mode are tightened); WAL journal, `synchronous` by
 * `durability`; another process holding the write lock is waited for up to 5 s rather than failed.
 */
export function openPrivateSqlite(filename: string, durability: SqliteDurability = 'normal'): Database.Database {
  const onDisk = filename !== ':memory:' && filename !== '';
  if (onDisk) ensurePrivateFile(filename);
  const db = new Database(filename);
  if (onDisk) for (const suffix of ['-wal', '-shm']) tightenFile(filename + suffix);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${durability === 'full' ? 'FULL' : 'NORMAL'}`);
  db.pragma('busy_timeout = 5000');
  return db;
}
