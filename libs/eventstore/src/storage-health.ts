import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { ErrorCodes, ServiceError } from '@funnel/contracts';
import type Database from 'better-sqlite3';

/** Why a store could not write: no room left, a read-only file or volume, or an I/O error of the disk. */
export type StorageProblem = 'full' | 'read-only' | 'io';

/**
 * A write refused by the storage under a store (a full disk, a read-only volume, a failing disk):
 * nothing was written. A ServiceError, so every handler that writes answers it as it is, 507
 * `STORE.FULL` or 503 `STORE.UNAVAILABLE`, instead of a bare 500; the message names no file.
 */
export class StorageUnavailableError extends ServiceError {
  constructor(
    readonly problem: StorageProblem,
    /** The store that failed (`event log`, `job queue`, `hit warehouse`), for logs. */
    readonly store: string,
    /** The driver's code, e.g. `SQLITE_FULL`. */
    readonly driverCode: string,
  ) {
    super(
      problem === 'full' ? 507 : 503,
      problem === 'full' ? ErrorCodes.STORE_FULL : ErrorCodes.STORE_UNAVAILABLE,
      problem === 'full'
        ? `the service's storage is full: nothing was saved; try again once its operators have freed space`
        : `the service's storage cannot be written (${problem === 'read-only' ? 'read-only' : 'disk error'}): nothing was saved; try again later`,
    );
    this.name = 'StorageUnavailableError';
  }
}

/**
 * The StorageUnavailableError for a SQLite error (better-sqlite3's `code`, extended codes included:
 * SQLITE_FULL, SQLITE_IOERR_*, SQLITE_READONLY_*), or undefined for any other error.
 */
export function storageErrorOf(error: unknown, store: string): StorageUnavailableError | undefined {
  if (error instanceof StorageUnavailableError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (code === 'SQLITE_FULL') return new StorageUnavailableError('full', store, code);
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) return new StorageUnavailableError('read-only', store, code);
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return new StorageUnavailableError('io', store, code);
  return undefined;
}

/** Runs a write on a SQLite store and throws a StorageUnavailableError in place of a storage failure. */
export function writingTo<T>(store: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw storageErrorOf(error, store) ?? error;
  }
}

/** Room a volume needs (bytes free to this user) for a failing store to count as writable again. */
const MIN_FREE_BYTES = 1024 * 1024;
/** Size of the probe row: it takes fresh pages, as an append does. */
const PROBE_BYTES = 16 * 1024;

/**
 * Whether a SQLite store takes writes, for readiness: false from a write that failed for its storage
 * until a write succeeds again. A service that is not ready gets no traffic, so while failing each
 * check probes: the volume must have MIN_FREE_BYTES free and a probe write (a row of PROBE_BYTES in a
 * table of its own, committed, then deleted) must succeed.
 */
export class SqliteWriteHealth {
  private failure: StorageUnavailableError | undefined;
  private readonly listeners: ((failure: StorageUnavailableError | undefined) => void)[] = [];

  constructor(
    private readonly db: Database.Database,
    /** The store's name in errors (`event log`). */
    private readonly store: string,
    /** The database file (`:memory:` or '' for none): its volume's free space is checked while failing. */
    private readonly filename: string,
  ) {}

  /** The last storage failure, while the store has not written since. */
  get lastFailure(): StorageUnavailableError | undefined {
    return this.failure;
  }

  /** Called when the store starts failing (with the failure) and when it writes again (undefined). */
  onChange(listener: (failure: StorageUnavailableError | undefined) => void): void {
    this.listeners.push(listener);
  }

  /** Runs a write: a storage failure is thrown as a StorageUnavailableError and marks the store failing; a success clears it. */
  write<T>(run: () => T): T {
    let result: T;
    try {
      result = run();
    } catch (error) {
      const failure = storageErrorOf(error, this.store);
      if (!failure) throw error;
      this.setFailure(failure);
      throw failure;
    }
    this.setFailure(undefined);
    return result;
  }

  /** True unless the last write failed for the storage and a probe still fails. */
  writable(): boolean {
    if (!this.failure) return true;
    if (!this.hasFreeSpace()) return false;
    try {
      this.write(() => this.probe());
      return true;
    } catch {
      return false;
    }
  }

  private probe(): void {
    this.db.exec('CREATE TABLE IF NOT EXISTS storage_probe (id INTEGER PRIMARY KEY, filler BLOB NOT NULL)');
    const { lastInsertRowid } = this.db.prepare('INSERT INTO storage_probe (filler) VALUES (zeroblob(?))').run(PROBE_BYTES);
    this.db.prepare('DELETE FROM storage_probe WHERE id = ?').run(lastInsertRowid);
  }

  private hasFreeSpace(): boolean {
    if (this.filename === ':memory:' || this.filename === '') return true;
    try {
      const stats = statfsSync(dirname(this.filename));
      return stats.bavail * stats.bsize >= MIN_FREE_BYTES;
    } catch {
      return false;
    }
  }

  private setFailure(failure: StorageUnavailableError | undefined): void {
    if (failure === undefined && this.failure === undefined) return;
    const changed = (failure === undefined) !== (this.failure === undefined);
    this.failure = failure;
    if (changed) for (const listener of this.listeners) listener(failure);
  }
}
