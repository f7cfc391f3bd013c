import { DuckDBInstance } from '@duckdb/node-api';
import { StorageUnavailableError } from '@funnel/eventstore';
import { backgroundWorkers } from './run-on-workers';

/** The store's name in storage errors (StorageUnavailableError.store). */
export const HIT_WAREHOUSE = 'hit warehouse';

/**
 * The warehouse file is open in another process: DuckDB lets one process at a time open a file for
 * writing. Its message is one line saying what to do.
 */
export class WarehouseInUseError extends Error {
  constructor(
    readonly filename: string,
    /** The process holding the file, when DuckDB names it. */
    readonly pid: number | undefined,
  ) {
    super(
      `the hit warehouse ${filename} is open in another process${pid === undefined ? '' : ` (pid ${pid})`}: ` +
        'stop the standalone (or reporting service) using this DATA_DIR first, or send the hits to it over NATS (NATS_URL)',
    );
    this.name = 'WarehouseInUseError';
  }
}

/**
 * How large DuckDB lets its write-ahead log grow before it checkpoints (writes the logged rows,
 * compressed, into the database file). Each checkpoint compresses again the row group still being
 * filled (up to 122,880 rows), so with DuckDB's 16 MB (about 30,000 hits) ingest spent most of its
 * time there; 64 MB is about one row group of hits. A crash replays at most this much log at the next open.
 */
export const WAREHOUSE_CHECKPOINT_THRESHOLD = '64MB';

interface Shared {
  instance: Promise<{ instance: DuckDBInstance; workers: number }>;
  users: number;
}

/** One instance per file in this process: DuckDB refuses a second open of the same file, even in the same process. */
const instances = new Map<string, Shared>();

/** An instance of the file's database shared by every user in this process; `release` closes it after its last user. */
export interface InstanceLease {
  instance: DuckDBInstance;
  /** DuckDB's background worker threads (see runOnWorkers). */
  workers: number;
  release(): void;
}

/** Opens (or shares) the database in `filename`: a WarehouseInUseError when another process has it open, a StorageUnavailableError when it cannot be written. */
export async function leaseInstance(filename: string): Promise<InstanceLease> {
  let shared = instances.get(filename);
  if (!shared) {
    shared = { instance: openInstance(filename), users: 0 };
    instances.set(filename, shared);
  }
  shared.users++;
  let instance: DuckDBInstance;
  let workers: number;
  try {
    ({ instance, workers } = await shared.instance);
  } catch (error) {
    if (--shared.users === 0 && instances.get(filename) === shared) instances.delete(filename);
    throw openErrorOf(error, filename);
  }
  let released = false;
  return {
    instance,
    workers,
    release() {
      if (released) return;
      released = true;
      if (--shared!.users > 0) return;
      instances.delete(filename);
      instance.closeSync();
    },
  };
}

async function openInstance(filename: string): Promise<{ instance: DuckDBInstance; workers: number }> {
  const instance = await DuckDBInstance.create(filename, { checkpoint_threshold: WAREHOUSE_CHECKPOINT_THRESHOLD });
  try {
    return { instance, workers: await backgroundWorkers(instance) };
  } catch (error) {
    instance.closeSync();
    throw error;
  }
}

function openErrorOf(error: unknown, filename: string): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/Could not set lock on file/i.test(message)) {
    const pid = /\(PID (\d+)\)/.exec(message)?.[1];
    return new WarehouseInUseError(filename, pid === undefined ? undefined : Number(pid));
  }
  return storageErrorOfDuckDb(error) ?? (error as Error);
}

/**
 * The StorageUnavailableError for a DuckDB error caused by its storage (a full disk, a file too large
 * for the process's limit, a read-only file or volume, any other I/O error, or the database DuckDB
 * invalidated after one), or undefined for any other error.
 */
export function storageErrorOfDuckDb(error: unknown): StorageUnavailableError | undefined {
  if (error instanceof StorageUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/No space left on device|File too large|Disk quota exceeded/i.test(message)) return new StorageUnavailableError('full', HIT_WAREHOUSE, 'DUCKDB_IO_FULL');
  if (/Read-only file system|Permission denied|read-only mode/i.test(message))
    return new StorageUnavailableError('read-only', HIT_WAREHOUSE, 'DUCKDB_IO_READONLY');
  if (/^IO Error|database has been invalidated|FATAL Error/i.test(message)) return new StorageUnavailableError('io', HIT_WAREHOUSE, 'DUCKDB_IO');
  return undefined;
}
