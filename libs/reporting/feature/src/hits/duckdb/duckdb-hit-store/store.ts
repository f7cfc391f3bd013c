import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type Database from 'better-sqlite3';
import { ensurePrivateDirectory, openPrivateSqlite, tightenFile, writingTo } from '@funnel/eventstore';
import type { EntranceQuery, Hit, HitFilter } from '@funnel/reporting-domain';
import type { AppliedRow, HitState, HitStore, HitWarehouse, InsertHitsResult, JobWrites, StateRead, UpdatedField } from '../../hit-store';
import { HIT_WAREHOUSE, leaseInstance, storageErrorOfDuckDb, type InstanceLease } from '../duckdb-instances';
import { DAY_MS, HitKeyIndex, VisitorDayIndex } from '../hit-key-index';
import { IngestLog } from '../ingest-log';
import { RecordedRowIndexes } from '../recorded-row-indexes';
import { importSqliteHits } from '../sqlite-import';
import { WarehouseConnections } from './connections';
import { HitIngest } from './ingest';
import { INGEST_COMMIT_ROWS } from './ingest-transaction';
import { HitReads } from './reads';
import { HIT_SEQ, createTables } from './tables';
import { HitUpdates } from './updates';
import { WaitingInserts } from './waiting-inserts';

export interface DuckDbHitStoreOptions {
  /** The data directory (created 0700 when missing). */
  dataDir: string;
  /** The DuckDB file inside dataDir (default `reporting.duckdb`). */
  fileName?: string;
  /** The SQLite file inside dataDir holding the hit-key index (and a previous version's hits, imported once), default `reporting.sqlite`. */
  indexFileName?: string;
  /** The rows at which the ingest transaction is committed (default INGEST_COMMIT_ROWS, DuckDB's row group; the specs use fewer). */
  ingestCommitRows?: number;
}

/**
 * The embedded hit warehouse: DuckDB, one columnar file `DATA_DIR/reporting.duckdb` (0600).
 *
 * - `hits` has the columns of WAREHOUSE_COLUMNS, appended in time order as hits arrive, so DuckDB's
 *   per-row-group min/max of `time_ms` (zone maps) confine a time-bounded read or update to the row
 *   groups of that time. No primary key: an ART index on (account, hitId) made the file 5.5x larger
 *   and still scanned for 1,000 ids.
 * - Reads and updates by hit id find the hits' times in the hit-key index (HitKeyIndex, SQLite in
 *   `reporting.sqlite`) and bound the statement by them. The apply path's (`getHitStates`, the
 *   commits' UPDATE) find the rows by the hits' sequence numbers (`hit_seq`, given at ingest and kept
 *   in the index too), integers, not by the ids' text.
 * - `job_batches` records each applied batch of a job's rows (one JSON record per batch) in the same
 *   DuckDB transaction as the batch's hit changes. The row indexes recorded for the jobs applied lately
 *   are kept in memory (RecordedRowIndexes), so recording a batch reads the job's records only for a job
 *   it does not hold.
 * - The apply path reads hit states (`getHitStates`: 10 values a hit, tracking fields and event counts
 *   as maps) rather than whole hits (~75 columns): about half the read's time. DuckDB decompresses
 *   every column a read names for every row of the row groups the time bounds leave (the ids are
 *   matched after the scan), so the read's time follows its column count: the tracking fields
 *   (22 columns) are read only for the slots the caller asks for.
 * - Ingested hits are appended into a transaction left open on the writer (the ingest transaction)
 *   and logged, before the ingest is answered, in the ingest log (IngestLog, SQLite, with their keys);
 *   DuckDB commits them by the row group (INGEST_COMMIT_ROWS) or after INGEST_COMMIT_MS, and before
 *   any read, any query connection (`warehouse.connect()`), any other write and the close. A crash
 *   loses the open transaction, never the log: the next open replays the entries DuckDB lacks.
 * - Writes run one at a time on the store's own connection; reads, and the queries of the reporting
 *   side (`warehouse.connect()`), on connections of their own, which see committed data only.
 *   DuckDB allows one process per file: a second process gets a WarehouseInUseError.
 */
export class DuckDbHitStore implements HitStore {
  readonly warehouse: HitWarehouse;
  /** The writer, the file's shared writes and the readers (connections.ts). */
  private readonly connections: WarehouseConnections;
  /** The ingest (ingest.ts; its transaction and log, ingest-transaction.ts), fed by the waiting insert calls (waiting-inserts.ts). */
  private readonly ingest: HitIngest;
  private readonly inserts: WaitingInserts;
  private readonly reads: HitReads;
  private readonly updates: HitUpdates;

  private constructor(
    lease: InstanceLease,
    private readonly writer: DuckDBConnection,
    private readonly sqlite: Database.Database,
    private readonly index: HitKeyIndex,
    filename: string,
    ingestCommitRows: number,
    private readonly visitors: VisitorDayIndex = new VisitorDayIndex(sqlite),
  ) {
    this.connections = new WarehouseConnections(lease, writer, filename, () => this.ingest.settleIngest());
    this.ingest = new HitIngest(this.connections, sqlite, index, visitors, filename, ingestCommitRows);
    this.inserts = new WaitingInserts(this.connections, (hits) => this.ingest.insertGroup(hits));
    const recordedIndexes = new RecordedRowIndexes();
    this.reads = new HitReads(this.connections, index, recordedIndexes);
    this.updates = new HitUpdates(this.connections, index, recordedIndexes);
    this.warehouse = { engine: 'duckdb', hitsTable: 'hits', connect: () => this.connections.settled().then(() => lease.instance.connect()) };
  }

  static async open(options: DuckDbHitStoreOptions): Promise<DuckDbHitStore> {
    const fileName = options.fileName ?? 'reporting.duckdb';
    const indexFileName = options.indexFileName ?? 'reporting.sqlite';
    ensurePrivateDirectory(options.dataDir, [fileName, indexFileName, ...IngestLog.files(`${fileName}.ingest`)]);
    const filename = join(options.dataDir, fileName);
    const lease = await leaseInstance(filename);
    // DuckDB creates its files with the process's umask (it refuses an empty file made beforehand): made
    // private at once, inside a directory only this user can enter.
    writingTo(HIT_WAREHOUSE, () => tightenFile(filename));
    let sqlite: Database.Database | undefined;
    let writer: DuckDBConnection | undefined;
    let store: DuckDbHitStore | undefined;
    try {
      writer = await lease.instance.connect();
      await createTables(writer);
      sqlite = openPrivateSqlite(join(options.dataDir, indexFileName));
      const opened = new DuckDbHitStore(lease, writer, sqlite, new HitKeyIndex(sqlite), filename, options.ingestCommitRows ?? INGEST_COMMIT_ROWS);
      store = opened;
      // The ingest log's entries DuckDB lacks (a crash) are written first.
      await opened.connections.exclusive(() => Promise.resolve());
      await importSqliteHits({
        sqlite,
        index: opened.index,
        writer,
        transaction: (work) => opened.connections.transaction(work),
        append: (rows) => opened.ingest.append(rows),
      });
      await opened.numberHits();
      await opened.buildVisitorDays();
      return opened;
    } catch (error) {
      store?.connections.releaseShared();
      writer?.closeSync();
      sqlite?.close();
      lease.release();
      throw storageErrorOfDuckDb(error) ?? error;
    }
  }

  insertHits(hits: readonly Hit[]): Promise<InsertHitsResult> {
    return this.inserts.insertHits(hits);
  }

  /** The UTC days in [startMs, endMs) on which the visitor may have hits (the explorer then reads only those days' row groups). */
  async visitorDays(accountId: string, visitorId: string, startMs: number, endMs: number): Promise<number[]> {
    return this.visitors.days(accountId, visitorId, startMs, endMs);
  }

  /**
   * Numbers the hits stored without a sequence number (a warehouse of the previous version, the
   * previous version's ingest log replayed, rows written by SQL), at open: in one DuckDB
   * transaction, the hit-key index first (numbers reserved there; a crash before the commit numbers
   * them again), then the rows, each `first + rowid` (row ids hold within a transaction).
   */
  private async numberHits(): Promise<void> {
    const count = await this.writer.runAndReadAll(`SELECT count(*), max(rowid) FROM hits WHERE ${HIT_SEQ.name} IS NULL`);
    const [unnumbered, lastRow] = count.getRows()[0];
    if (Number(unnumbered) === 0) return;
    const first = writingTo(HIT_WAREHOUSE, () => this.index.reserve(Number(lastRow) + 1));
    await this.connections.transaction(async () => {
      const result = await this.writer.stream(`SELECT account_id, hit_id, rowid FROM hits WHERE ${HIT_SEQ.name} IS NULL`);
      for (let chunk = await result.fetchChunk(); chunk && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
        const rows = chunk.getRows().map(([accountId, hitId, rowid]): [string, string, number] => [String(accountId), String(hitId), first + Number(rowid)]);
        writingTo(HIT_WAREHOUSE, () => this.index.number(rows));
      }
      await this.writer.run(`UPDATE hits SET ${HIT_SEQ.name} = $1 + rowid WHERE ${HIT_SEQ.name} IS NULL`, [BigInt(first)]);
    });
    // The numbers written into the file's column: until a checkpoint every scan of it merges them in.
    await this.writer.run('CHECKPOINT');
  }

  /** A warehouse written before the visitor-day index existed: its days, once (an empty warehouse is done at once). */
  private async buildVisitorDays(): Promise<void> {
    if (this.visitors.built) return;
    const reader = await this.writer.runAndReadAll(`SELECT DISTINCT account_id, visitor_id, (time_ms // ${DAY_MS})::BIGINT AS day FROM hits`);
    const rows = reader.getRows();
    writingTo(HIT_WAREHOUSE, () =>
      this.visitors.build(
        (function* () {
          for (const [accountId, visitorId, day] of rows) yield { accountId: String(accountId), visitorId: String(visitorId), day: Number(day) };
        })(),
      ),
    );
  }

  getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    return this.reads.getHits(accountId, hitIds);
  }

  getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]> {
    return this.reads.getHitStates(accountId, hitIds, read);
  }

  findEntrances(accountId: string, query: EntranceQuery): Promise<Hit[]> {
    return this.reads.findEntrances(accountId, query);
  }

  countHits(accountId: string, filter: HitFilter): Promise<number> {
    return this.reads.countHits(accountId, filter);
  }

  appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    return this.reads.appliedRows(accountId, jobId);
  }

  appliedRowsOfJobs(accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
    return this.reads.appliedRowsOfJobs(accountId, jobIds);
  }

  commitRows(accountId: string, jobId: string, changed: readonly HitState[], rows: readonly AppliedRow[], fields?: readonly UpdatedField[]): Promise<void> {
    return this.updates.commitJobs(accountId, [{ jobId, changed, rows, fields }]);
  }

  commitJobs(accountId: string, jobs: readonly JobWrites[]): Promise<void> {
    return this.updates.commitJobs(accountId, jobs);
  }

  deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow> {
    return this.updates.deleteHits(accountId, jobId, rowIndex, filter);
  }

  async close(): Promise<void> {
    if (this.connections.closed) return;
    // After the writes queued before (of any store of the file); hits left in the log when the commit fails are written at the next open.
    await this.connections.close(() => this.ingest.settleOnClose());
    this.sqlite.close();
  }
}
