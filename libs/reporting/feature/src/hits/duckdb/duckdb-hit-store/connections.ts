// The store's connections to the file: its writer (writes one at a time, shared with the file's other stores), its transactions and its readers.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { tightenFile } from '@funnel/eventstore';
import { storageErrorOfDuckDb, type InstanceLease } from '../duckdb-instances';
import { PlaceCache } from '../hit-key-index';
import { IngestLog } from '../ingest-log';
import type { OpenIngest } from './ingest-transaction';

/** Idle read connections a store keeps at most (a read opens a connection of its own when none is idle). */
const IDLE_READERS = 4;

/**
 * What the stores open on one file in this process share (DuckDB lets one process open a file, and
 * this process shares one instance): their writes run one at a time, whichever store runs them, so
 * that one ingest transaction at most is open on the file, which any store commits before its own
 * reads and writes, and the ingest log's entries after the committed one are those of that transaction.
 */
export interface SharedWriter {
  /** The stores open on the file. */
  users: number;
  log: IngestLog;
  writes: Promise<unknown>;
  ingest: OpenIngest | undefined;
  /** The last ingest log entry DuckDB committed. */
  logCommitted: number;
  /** DuckDB may lack entries of the log after `logCommitted` (a new open, a failed write): they are written again before anything else. */
  logBehind: boolean;
  /**
   * A full ingest transaction's commit under way on its writer (see IngestTransaction.commitInBackground):
   * ingests meanwhile only log their hits (`unapplied`); every other write, and any read, waits for it.
   */
  committing: { ids: Map<string, Set<string>>; done: Promise<void> } | undefined;
  /** The ids, by account, of the hits logged while a commit was under way and not yet in DuckDB's ingest transaction. */
  unapplied: Map<string, Set<string>> | undefined;
  /** The places of the hits read lately, for the updates of their states (any store of the file may remove hits). */
  places: PlaceCache;
}
const sharedWriters = new WeakMap<DuckDBInstance, SharedWriter>();

/**
 * A store's connections: writes run one at a time on its writer, after those of the file's other
 * stores (`queued`), with the file's ingested hits committed first (`exclusive`, by `settleIngest`);
 * reads on connections of their own (`reading`).
 */
export class WarehouseConnections {
  readonly shared: SharedWriter;
  /** Connections of reads done, kept for the next reads (at most IDLE_READERS). */
  private readonly idleReaders: DuckDBConnection[] = [];
  /** Set by `close`: reads and writes fail from then on. */
  closed = false;

  constructor(
    readonly lease: InstanceLease,
    readonly writer: DuckDBConnection,
    private readonly filename: string,
    /** Commits the file's ingested hits (see IngestTransaction.settle). */
    private readonly settleIngest: () => Promise<void>,
  ) {
    let shared = sharedWriters.get(lease.instance);
    if (!shared) {
      shared = {
        users: 0,
        log: IngestLog.open(`${filename}.ingest`),
        writes: Promise.resolve(),
        ingest: undefined,
        logCommitted: 0,
        logBehind: true,
        committing: undefined,
        unapplied: undefined,
        places: new PlaceCache(),
      };
      sharedWriters.set(lease.instance, shared);
    }
    shared.users++;
    this.shared = shared;
  }

  /**
   * Closes the store's DuckDB connections and releases its instance after the writes queued before (of any store of
   * the file) and `last`, written then; a failure of those leaves the close going on.
   */
  async close(last: () => Promise<void> | undefined): Promise<void> {
    this.closed = true;
    const settled = this.shared.writes.then(last);
    this.shared.writes = settled.catch(() => undefined);
    await settled.catch(() => undefined);
    this.releaseShared();
    for (const connection of this.idleReaders.splice(0)) connection.closeSync();
    this.writer.closeSync();
    this.lease.release();
    tightenFile(`${this.filename}.wal`);
  }

  /** This store no longer uses what the file's stores share (the last one closes the ingest log). */
  releaseShared(): void {
    if (--this.shared.users > 0) return;
    this.shared.log.close();
    sharedWriters.delete(this.lease.instance);
  }

  /** Runs `work` after the writes before it, with the ingested hits committed first (see `queued`). */
  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queued(async () => {
      await this.settleIngest();
      return work();
    });
  }

  /** Runs `work` after the writes before it (one write at a time on the writer connection). */
  queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the hit warehouse is closed'));
    const result = this.shared.writes.then(work, work);
    this.shared.writes = result.catch(() => undefined);
    return result;
  }

  /** A transaction of its own, after the writes before it. */
  transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.exclusive(() => this.inTransaction(work));
  }

  /** BEGIN .. COMMIT around `work` on the writer (the caller holds `exclusive`); a storage failure is a StorageUnavailableError. */
  async inTransaction<T>(work: () => Promise<T>): Promise<T> {
    try {
      await this.writer.run('BEGIN TRANSACTION');
      try {
        const result = await work();
        await this.writer.run('COMMIT');
        // DuckDB creates its write-ahead log with the process's umask: kept private as the database is.
        tightenFile(`${this.filename}.wal`);
        return result;
      } catch (error) {
        await this.writer.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    } catch (error) {
      throw storageErrorOfDuckDb(error) ?? error;
    }
  }

  /**
   * A read on a connection of its own, so it neither waits for the writer nor sees its open
   * transaction. The connection of a read that succeeded is kept for a later read (each statement
   * is a transaction of its own: it sees what was committed before it); one that failed is closed.
   */
  async reading<T>(read: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the hit warehouse is closed');
    await this.settled();
    const connection = this.idleReaders.pop() ?? (await this.lease.instance.connect());
    let reusable = false;
    try {
      const result = await read(connection);
      reusable = true;
      return result;
    } finally {
      if (reusable && !this.closed && this.idleReaders.length < IDLE_READERS) this.idleReaders.push(connection);
      else connection.closeSync();
    }
  }

  /**
   * Resolves once every hit ingested so far is committed (readable on other connections). When the
   * commit fails (a full disk), reads go on with what is committed, and writes fail until it succeeds.
   */
  async settled(): Promise<void> {
    const { ingest, logBehind, committing, unapplied } = this.shared;
    if (ingest || logBehind || committing || unapplied) await this.exclusive(() => Promise.resolve()).catch(() => undefined);
  }
}
