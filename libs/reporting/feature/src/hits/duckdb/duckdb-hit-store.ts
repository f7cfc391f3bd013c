import { join } from 'node:path';
import { listValue, type DuckDBAppender, type DuckDBConnection, type DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import type Database from 'better-sqlite3';
import { ensurePrivateDirectory, openPrivateSqlite, tightenFile, writingTo } from '@funnel/eventstore';
import { timeMs, type EntranceQuery, type Hit, type HitFilter } from '@funnel/reporting-domain';
import { HIT_COLUMN_VALUES, HIT_READ_COLUMNS, countsAsClick, hitFromRow, type WarehouseRow, type WarehouseValue } from '../hit-row';
import { CUSTOM_EVENT_ENTRIES, hitStateFromRow, hitStateSelects } from '../hit-state';
import {
  UPDATED_FIELDS,
  type AppliedRow,
  type HitState,
  type HitStore,
  type HitWarehouse,
  type InsertHitsResult,
  type JobWrites,
  type StateRead,
  type UpdatedField,
} from '../hit-store';
import { CUSTOM_EVENT_NUMBERS, MIDDLEWARE_COLUMNS, TRACKING_SLOTS, WAREHOUSE_COLUMNS, customEventColumn, trackingColumn } from '../warehouse-schema';
import { HIT_WAREHOUSE, leaseInstance, storageErrorOfDuckDb, type InstanceLease } from './duckdb-instances';
import { ChunkWriter } from './hit-chunk';
import { DAY_MS, HitKeyIndex, VisitorDayIndex, type VisitorDay } from './hit-key-index';
import { IngestLog, type LoggedClicks } from './ingest-log';
import { RecordedRowIndexes } from './recorded-row-indexes';
import { importSqliteHits } from './sqlite-import';
import { timeRanges, timeRangesSql } from './time-ranges';

export interface DuckDbHitStoreOptions {
  /** The data directory (created 0700 when missing). */
  dataDir: string;
  /** The DuckDB file inside dataDir (default `reporting.duckdb`). */
  fileName?: string;
  /** The SQLite file inside dataDir holding the hit-key index (and a previous version's hits, imported once), default `reporting.sqlite`. */
  indexFileName?: string;
}

/** The columns a reporting update changes, staged per commit and written with one UPDATE (those of the fields a commit stores). */
const UPDATE_COLUMNS = ['cost', 'conversions', 'conversion_count', 'revenue', ...CUSTOM_EVENT_NUMBERS.map(customEventColumn), 'postback_called'];
const UPDATED_FIELD_OF_COLUMN: Record<string, UpdatedField> = {
  cost: 'cost',
  conversions: 'conversions',
  conversion_count: 'conversions',
  revenue: 'conversions',
  postback_called: 'conversions',
  ...Object.fromEntries(CUSTOM_EVENT_NUMBERS.map((n) => [customEventColumn(n), 'customEvents' as const])),
};

/** The fields any of the jobs stores (a job without `fields` stores all). */
function updatedFieldsOf(jobs: readonly JobWrites[]): ReadonlySet<UpdatedField> {
  const fields = new Set<UpdatedField>();
  for (const job of jobs) for (const field of job.fields ?? UPDATED_FIELDS) fields.add(field);
  return fields;
}
const STAGED_COLUMNS = WAREHOUSE_COLUMNS.filter((column) => ['hit_id', 'time_ms', ...UPDATE_COLUMNS].includes(column.name)).map((column) => ({
  ...column,
  duckdb: column.duckdb.split(' ')[0],
}));

/** The staged value of an updated column a commit does not store (the UPDATE does not set it): a state's empty value. */
const EMPTY_STAGED_VALUES: Readonly<Record<string, WarehouseValue>> = Object.fromEntries(
  UPDATE_COLUMNS.map((column) => [
    column,
    HIT_COLUMN_VALUES[column]({ cost: '0', conversions: [], customEvents: {}, postbackCalled: false } as unknown as Hit),
  ]),
);

/** Idle read connections a store keeps at most (a read opens a connection of its own when none is idle). */
const IDLE_READERS = 4;

/** The most hits one grouped insert writes (a call larger than this is written alone). */
const INSERT_GROUP_HITS = 20_000;

/**
 * Ingested hits committed together: one DuckDB row group. DuckDB writes the full row groups of a
 * transaction straight into the file, compressed, instead of logging their rows in its WAL and
 * compressing them again at the checkpoint: about 3x less of DuckDB's time per hit than commits of
 * 1,000-20,000 hits.
 */
export const INGEST_COMMIT_ROWS = 122_880;
/** The most ingested rows the ingest transaction's appender holds before they are moved into the transaction (see OpenIngest). */
const INGEST_FLUSH_ROWS = 16_384;
/**
 * When no read or other write asks for them first, ingested hits are committed once no ingest came
 * for INGEST_IDLE_MS, and INGEST_COMMIT_MS after the first at the latest (a steady trickle).
 */
export const INGEST_IDLE_MS = 1_000;
export const INGEST_COMMIT_MS = 30_000;
/** `warehouse_meta` key of the last ingest log entry committed in DuckDB. */
const INGEST_LOG_KEY = 'ingest_log_committed';

/** The ingest transaction open on a writer (`writer`, of the store that began it): its appender to `hits`, the rows appended, the last log entry it holds. */
interface OpenIngest {
  writer: DuckDBConnection;
  appender: DuckDBAppender;
  rows: number;
  /**
   * The rows its appender holds, not yet in the transaction (flushed by INGEST_FLUSH_ROWS: each
   * flush costs DuckDB about 2 ms however few the rows), and their ids by account.
   */
  unflushedRows: number;
  unflushed: Map<string, Set<string>>;
  lastLogged: number;
  /** The clicks counted on hits stored before, by account and hit: written when it commits (see `applyIngest`). */
  clicks: Map<string, Map<string, { n: number; timeMs: number }>>;
  /** When it began, and the timer of its commit (see INGEST_IDLE_MS). */
  began: number;
  timer: NodeJS.Timeout;
}

/**
 * What the stores open on one file in this process share (DuckDB lets one process open a file, and
 * this process shares one instance): their writes run one at a time, whichever store runs them, so
 * that one ingest transaction at most is open on the file, which any store commits before its own
 * reads and writes, and the ingest log's entries after the committed one are those of that transaction.
 */
interface SharedWriter {
  /** The stores open on the file. */
  users: number;
  log: IngestLog;
  writes: Promise<unknown>;
  ingest: OpenIngest | undefined;
  /** The last ingest log entry DuckDB committed. */
  logCommitted: number;
  /** DuckDB may lack entries of the log after `logCommitted` (a new open, a failed write): they are written again before anything else. */
  logBehind: boolean;
}
const sharedWriters = new WeakMap<DuckDBInstance, SharedWriter>();

/** An insertHits call waiting for its group's write. */
interface WaitingInsert {
  hits: readonly Hit[];
  resolve(result: InsertHitsResult): void;
  reject(error: unknown): void;
}

/** Columns of an earlier version's `hits`, dropped at open. */
const RETIRED_COLUMNS = ['conversion_times', 'conversion_payouts'];

const SELECT_HIT = HIT_READ_COLUMNS.map((column) => (column === 'cost' ? 'cost::VARCHAR AS cost' : column)).join(', ');

/** A MAP of the entries (key, column) whose column passes `keep` (a lambda body on `e.v`). */
const mapOf = (entries: readonly [string, string][], keep: string) =>
  `map_from_entries(list_filter([${entries.map(([key, column]) => `{'k': '${key}', 'v': ${column}}`).join(', ')}], lambda e: ${keep}))`;

/** HIT_STATE_COLUMNS, or those of a StateRead (no tracking field: NULL, read as none). */
const selectHitState = hitStateSelects(({ trackingEntries, fields }) =>
  [
    'account_id',
    'hit_id',
    'time_ms',
    'id_funnel',
    'id_traffic_source',
    `${trackingEntries.length > 0 ? mapOf(trackingEntries, "e.v <> ''") : 'NULL'} AS tracking_fields`,
    ...(fields.has('cost') ? ['cost::VARCHAR AS cost'] : []),
    ...(fields.has('conversions') ? ['conversions', 'postback_called'] : []),
    ...(fields.has('customEvents') ? [`${mapOf(CUSTOM_EVENT_ENTRIES, 'e.v > 0')} AS custom_events`] : []),
  ].join(', '),
);

/**
 * The embedded hit warehouse: DuckDB, one columnar file `DATA_DIR/reporting.duckdb` (0600).
 *
 * - `hits` has the columns of WAREHOUSE_COLUMNS, appended in time order as hits arrive, so DuckDB's
 *   per-row-group min/max of `time_ms` (zone maps) confine a time-bounded read or update to the row
 *   groups of that time. No primary key: an ART index on (account, hitId) made the file 5.5x larger
 *   and still scanned for 1,000 ids.
 * - Reads and updates by hit id find the hits' times in the hit-key index (HitKeyIndex, SQLite in
 *   `reporting.sqlite`) and bound the statement by them.
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
  private readonly shared: SharedWriter;
  private readonly waitingInserts: WaitingInsert[] = [];
  /** Fills the data chunks appended to `hits` (by one write at a time). */
  private readonly hitsChunks = new ChunkWriter(WAREHOUSE_COLUMNS);
  /** Fills the data chunks of hit states staged for an update (by one write at a time). */
  private readonly stagedChunks = new ChunkWriter(STAGED_COLUMNS);
  /** Connections of reads done, kept for the next reads (at most IDLE_READERS). */
  private readonly idleReaders: DuckDBConnection[] = [];
  private readonly recordedIndexes = new RecordedRowIndexes();
  private closed = false;

  private constructor(
    private readonly lease: InstanceLease,
    private readonly writer: DuckDBConnection,
    private readonly sqlite: Database.Database,
    private readonly index: HitKeyIndex,
    private readonly filename: string,
    private readonly visitors: VisitorDayIndex = new VisitorDayIndex(sqlite),
  ) {
    let shared = sharedWriters.get(lease.instance);
    if (!shared) {
      shared = { users: 0, log: IngestLog.open(`${filename}.ingest`), writes: Promise.resolve(), ingest: undefined, logCommitted: 0, logBehind: true };
      sharedWriters.set(lease.instance, shared);
    }
    shared.users++;
    this.shared = shared;
    this.warehouse = { engine: 'duckdb', hitsTable: 'hits', connect: () => this.settled().then(() => lease.instance.connect()) };
  }

  /** The file's ingest transaction (see SharedWriter). */
  private get ingest(): OpenIngest | undefined {
    return this.shared.ingest;
  }
  private set ingest(ingest: OpenIngest | undefined) {
    this.shared.ingest = ingest;
  }
  private get logCommitted(): number {
    return this.shared.logCommitted;
  }
  private set logCommitted(id: number) {
    this.shared.logCommitted = id;
  }
  private get logBehind(): boolean {
    return this.shared.logBehind;
  }
  private set logBehind(behind: boolean) {
    this.shared.logBehind = behind;
  }

  static async open(options: DuckDbHitStoreOptions): Promise<DuckDbHitStore> {
    const fileName = options.fileName ?? 'reporting.duckdb';
    const indexFileName = options.indexFileName ?? 'reporting.sqlite';
    ensurePrivateDirectory(options.dataDir, [fileName, indexFileName, `${fileName}.ingest`]);
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
      const opened = new DuckDbHitStore(lease, writer, sqlite, new HitKeyIndex(sqlite), filename);
      store = opened;
      // The ingest log's entries DuckDB lacks (a crash) are written first.
      await opened.exclusive(() => Promise.resolve());
      await importSqliteHits({ sqlite, index: opened.index, writer, transaction: (work) => opened.transaction(work), append: (rows) => opened.append(rows) });
      await opened.buildVisitorDays();
      return opened;
    } catch (error) {
      store?.releaseShared();
      writer?.closeSync();
      sqlite?.close();
      lease.release();
      throw storageErrorOfDuckDb(error) ?? error;
    }
  }

  /**
   * Calls waiting for the writer are written together (see `insertGroup`): one transaction and one
   * commit for every call that arrived while the writes before them ran, each answered its own counts.
   */
  insertHits(hits: readonly Hit[]): Promise<InsertHitsResult> {
    if (hits.length === 0) return Promise.resolve({ inserted: 0, ignored: 0 });
    if (this.closed) return Promise.reject(new Error('the hit warehouse is closed'));
    return new Promise((resolve, reject) => {
      this.waitingInserts.push({ hits, resolve, reject });
      if (this.waitingInserts.length === 1) this.scheduleInserts();
    });
  }

  /** Queues a write of the waiting insert calls after the writes before it; when the store is closed meanwhile, they fail. */
  private scheduleInserts(): void {
    this.queued(() => this.insertWaiting()).catch((error: unknown) => {
      for (const call of this.waitingInserts.splice(0)) call.reject(error);
    });
  }

  /** Writes the waiting insert calls, up to INSERT_GROUP_HITS hits, as one group; the others wait for the next turn. */
  private async insertWaiting(): Promise<void> {
    const group: WaitingInsert[] = [];
    let size = 0;
    while (this.waitingInserts.length > 0 && (group.length === 0 || size + this.waitingInserts[0].hits.length <= INSERT_GROUP_HITS)) {
      const next = this.waitingInserts.shift()!;
      group.push(next);
      size += next.hits.length;
    }
    if (this.waitingInserts.length > 0) this.scheduleInserts();
    try {
      const inserted = await this.insertGroup(group.flatMap((call) => call.hits));
      let offset = 0;
      for (const call of group) {
        let count = 0;
        for (let i = 0; i < call.hits.length; i++) if (inserted.has(offset + i)) count++;
        offset += call.hits.length;
        call.resolve({ inserted: count, ignored: call.hits.length - count });
      }
    } catch (error) {
      for (const call of group) call.reject(error);
    }
  }

  /**
   * Stores the hits new to the warehouse in one transaction (the caller holds `exclusive`) and
   * answers the positions in `hits` of those stored: for each account and id, the first occurrence,
   * unless the id is stored already. Action hits count their clicks (see HitStore.insertHits).
   */
  private async insertGroup(hits: readonly Hit[]): Promise<Set<number>> {
    // Hits a failed write lost from the ingest transaction are written again first, and another store's
    // ingest transaction is committed: the stored ids below, read on this store's writer, include them.
    if (this.logBehind) await this.replayIngestLog();
    if (this.ingest && this.ingest.writer !== this.writer) await this.commitIngest();
    // The first of repeated ids wins.
    const byAccount = new Map<string, Map<string, number>>();
    hits.forEach((hit, position) => {
      const accountHits = byAccount.get(hit.accountId) ?? new Map<string, number>();
      byAccount.set(hit.accountId, accountHits);
      if (!accountHits.has(hit.hitId)) accountHits.set(hit.hitId, position);
    });
    // The hits to store, their times and the clicks they get from action hits stored with them.
    const fresh: Hit[] = [];
    const freshTimes: number[] = [];
    const batchClicks: number[] = [];
    const inserted = new Set<number>();
    const clicks: { accountId: string; counts: Map<string, number>; keys: Map<string, number> }[] = [];
    for (const [accountId, positions] of byAccount) {
      const accountHits = [...positions.values()].map((position) => hits[position]);
      const previousIds = accountHits.filter((hit) => hit.action > 0 && hit.previousHitId !== '').map((hit) => hit.previousHitId);
      const keys = this.index.lookup(accountId, [...new Set([...positions.keys(), ...previousIds])]);
      const stored = await this.ingestedIds(
        accountId,
        [...positions.keys()].filter((id) => keys.has(id)),
        keys,
      );
      // hitId -> index in `fresh`
      const rows = new Map<string, number>();
      for (const [hitId, position] of positions)
        if (!stored.has(hitId)) {
          rows.set(hitId, fresh.length);
          fresh.push(hits[position]);
          freshTimes.push(timeMs(hits[position].time));
          batchClicks.push(0);
          inserted.add(position);
        }
      const counts = new Map<string, number>();
      for (const hit of accountHits) {
        if (stored.has(hit.hitId) || hit.action === 0 || hit.previousHitId === '') continue;
        const inBatch = rows.get(hit.previousHitId);
        if (inBatch !== undefined && countsAsClick(hit, freshTimes[inBatch])) batchClicks[inBatch]++;
        else if (inBatch === undefined && keys.has(hit.previousHitId) && countsAsClick(hit, keys.get(hit.previousHitId)!)) {
          counts.set(hit.previousHitId, (counts.get(hit.previousHitId) ?? 0) + 1);
        }
      }
      if (counts.size > 0) clicks.push({ accountId, counts, keys });
    }
    if (fresh.length === 0) return inserted;
    // Laid out (and checked) before anything is written; in the writer's own buffer, appended and logged before the next write packs.
    const rows = this.hitsChunks.pack(fresh.length, (column, start) => {
      if (column === 'time_ms') return (row) => freshTimes[start + row];
      if (column === 'clicks') return (row) => fresh[start + row].clicks + batchClicks[start + row];
      const value = HIT_COLUMN_VALUES[column];
      return (row) => value(fresh[start + row]);
    });
    const logged: LoggedClicks[] = clicks.map(({ accountId, counts, keys }) => ({
      accountId,
      ids: [...counts.keys()],
      counts: [...counts.values()],
      times: [...counts.keys()].map((id) => keys.get(id)!),
    }));
    // The keys and visitor days in one SQLite transaction.
    await this.ingestRows(rows, fresh, logged, () =>
      this.sqlite
        .transaction(() => {
          this.visitors.write(visitorDaysOf(fresh, freshTimes));
          this.index.write(fresh.map((hit, i) => ({ accountId: hit.accountId, hitId: hit.hitId, timeMs: freshTimes[i] })));
        })
        .immediate(),
    );
    return inserted;
  }

  /**
   * Writes an ingest's rows and clicks into the ingest transaction, then logs them with `index` (the
   * rows' keys and visitor days, written in the same SQLite transaction as the entry): the hits are
   * durable once this resolves. The caller holds `queued`. When the write or the log fails, the
   * transaction is rolled back and the entries logged before are written again (this ingest's are
   * not stored: it fails).
   */
  private async ingestRows(rows: Buffer, hits: readonly Hit[], clicks: readonly LoggedClicks[], index: () => void): Promise<void> {
    try {
      const ingest = await this.openIngest();
      await this.applyIngest(ingest, rows, clicks);
      writingTo(HIT_WAREHOUSE, index);
      ingest.lastLogged = this.shared.log.append(rows, clicks);
      clearTimeout(ingest.timer);
      ingest.timer = this.commitTimer(ingest.began);
      for (const hit of hits) {
        const ids = ingest.unflushed.get(hit.accountId) ?? new Set<string>();
        ingest.unflushed.set(hit.accountId, ids);
        ids.add(hit.hitId);
      }
      if (ingest.unflushedRows >= INGEST_FLUSH_ROWS) this.flushIngest(ingest);
    } catch (error) {
      await this.abandonIngest();
      await this.replayIngestLog().catch(() => undefined);
      throw storageErrorOfDuckDb(error) ?? error;
    }
    // Logged: a failed commit now leaves the hits in the log, written again before the next write.
    if (this.ingest && this.ingest.rows >= INGEST_COMMIT_ROWS) await this.commitIngest().catch(() => undefined);
  }

  /** The ingest transaction, begun when none is open (committed by INGEST_COMMIT_MS at the latest). */
  private async openIngest(): Promise<OpenIngest> {
    if (this.ingest) return this.ingest;
    await this.writer.run('BEGIN TRANSACTION');
    let appender: DuckDBAppender;
    try {
      appender = await this.writer.createAppender('hits');
    } catch (error) {
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    this.ingest = {
      writer: this.writer,
      appender,
      rows: 0,
      unflushedRows: 0,
      unflushed: new Map(),
      lastLogged: this.logCommitted,
      clicks: new Map(),
      began: Date.now(),
      timer: this.commitTimer(),
    };
    return this.ingest;
  }

  /** A timer committing the ingest transaction when no ingest comes within INGEST_IDLE_MS (or at INGEST_COMMIT_MS), restarted by each one. */
  private commitTimer(began = Date.now()): NodeJS.Timeout {
    const timer = setTimeout(() => void this.settled(), Math.max(0, Math.min(INGEST_IDLE_MS, began + INGEST_COMMIT_MS - Date.now())));
    timer.unref();
    return timer;
  }

  /** Moves the rows the ingest transaction's appender holds into the transaction (its own reads see them then). */
  private flushIngest(ingest: OpenIngest): void {
    ingest.appender.flushSync();
    ingest.unflushed.clear();
    ingest.unflushedRows = 0;
  }

  /**
   * The ids among `candidates` (which have keys) ingested before: those committed or written into
   * the ingest transaction (read on the writer, which sees its own transaction), and those its
   * appender still holds.
   */
  private async ingestedIds(accountId: string, candidates: readonly string[], keys: Map<string, number>): Promise<Set<string>> {
    const held = this.ingest?.unflushed.get(accountId);
    const found = await this.storedIds(this.writer, accountId, held ? candidates.filter((id) => !held.has(id)) : candidates, keys);
    if (held) for (const id of candidates) if (held.has(id)) found.add(id);
    return found;
  }

  /**
   * Appends packed rows to `hits` in the ingest transaction; the clicks counted on hits stored before
   * are added up, and written with one UPDATE per account when the transaction commits: each UPDATE
   * of rows appended in the transaction costs DuckDB's commit about as much as the rows themselves.
   */
  private async applyIngest(ingest: OpenIngest, rows: Uint8Array, clicks: readonly LoggedClicks[]): Promise<void> {
    const appended = this.hitsChunks.appendPacked(ingest.appender, rows);
    ingest.rows += appended;
    ingest.unflushedRows += appended;
    for (const { accountId, ids, counts, times } of clicks) {
      const accountClicks = ingest.clicks.get(accountId) ?? new Map<string, { n: number; timeMs: number }>();
      ingest.clicks.set(accountId, accountClicks);
      ids.forEach((id, i) => {
        const known = accountClicks.get(id);
        if (known) known.n += counts[i];
        else accountClicks.set(id, { n: counts[i], timeMs: times[i] });
      });
    }
  }

  /** Writes the clicks the ingest transaction added up (inside it), bounded by the hits' times. */
  private async writeClicks(ingest: OpenIngest): Promise<void> {
    for (const [accountId, accountClicks] of ingest.clicks) {
      const times = [...accountClicks.values()].map((click) => click.timeMs);
      await ingest.writer.run(
        `UPDATE hits SET clicks = clicks + u.n
           FROM (SELECT unnest($2::VARCHAR[]) AS id, unnest($3::UINTEGER[]) AS n) u
           WHERE hits.account_id = $1 AND hits.time_ms BETWEEN $4 AND $5 AND hits.hit_id = u.id`,
        [
          accountId,
          listValue([...accountClicks.keys()]),
          listValue([...accountClicks.values()].map((click) => click.n)),
          BigInt(Math.min(...times)),
          BigInt(Math.max(...times)),
        ],
      );
    }
    ingest.clicks.clear();
  }

  /** Commits the ingest transaction with the last log entry it holds, then removes the log's entries up to it. */
  private async commitIngest(): Promise<void> {
    const ingest = this.ingest;
    if (!ingest) return;
    clearTimeout(ingest.timer);
    try {
      ingest.appender.closeSync();
      await this.writeClicks(ingest);
      await ingest.writer.run(
        `INSERT INTO warehouse_meta (key, value) VALUES ('${INGEST_LOG_KEY}', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(ingest.lastLogged)],
      );
      await ingest.writer.run('COMMIT');
    } catch (error) {
      await this.abandonIngest();
      throw storageErrorOfDuckDb(error) ?? error;
    }
    this.ingest = undefined;
    this.logCommitted = ingest.lastLogged;
    // DuckDB creates its write-ahead log with the process's umask: kept private as the database is.
    tightenFile(`${this.filename}.wal`);
    // Entries up to the recorded one are skipped (and removed) at the next open when this fails.
    try {
      this.shared.log.removeThrough(ingest.lastLogged);
    } catch {
      // See above.
    }
  }

  /** Rolls the ingest transaction back: the log's entries after `logCommitted` are to be written again. */
  private async abandonIngest(): Promise<void> {
    const ingest = this.ingest;
    this.ingest = undefined;
    this.logBehind = true;
    if (!ingest) return;
    clearTimeout(ingest.timer);
    try {
      ingest.appender.closeSync();
    } catch {
      // The rows it still held are rolled back with the transaction.
    }
    await ingest.writer.run('ROLLBACK').catch(() => undefined);
  }

  /**
   * Writes the log's entries DuckDB lacks (after the recorded last one) in one transaction, and
   * commits it: at open (after a crash) and after a failed write. The caller holds the writer (or
   * the store is opening).
   */
  private async replayIngestLog(): Promise<void> {
    await this.commitIngest();
    const reader = await this.writer.runAndReadAll(`SELECT value FROM warehouse_meta WHERE key = '${INGEST_LOG_KEY}'`);
    const recorded = reader.getRows()[0]?.[0];
    this.logCommitted = recorded === undefined ? 0 : Number(recorded);
    this.shared.log.skipTo(this.logCommitted);
    this.shared.log.removeThrough(this.logCommitted);
    const ids = this.shared.log.idsAfter(this.logCommitted);
    if (ids.length > 0) {
      try {
        const ingest = await this.openIngest();
        for (const id of ids) {
          const entry = this.shared.log.entry(id);
          await this.applyIngest(ingest, entry.rows, entry.clicks);
          ingest.lastLogged = id;
        }
        this.flushIngest(ingest);
      } catch (error) {
        await this.abandonIngest();
        throw storageErrorOfDuckDb(error) ?? error;
      }
      await this.commitIngest();
    }
    this.logBehind = false;
  }

  /** Commits the ingested hits waiting in the ingest transaction (and writes again those a failed write lost). The caller holds the writer. */
  private async settleIngest(): Promise<void> {
    if (this.logBehind) await this.replayIngestLog();
    await this.commitIngest();
  }

  /**
   * Resolves once every hit ingested so far is committed (readable on other connections). When the
   * commit fails (a full disk), reads go on with what is committed, and writes fail until it succeeds.
   */
  private async settled(): Promise<void> {
    if (this.ingest || this.logBehind) await this.exclusive(() => Promise.resolve()).catch(() => undefined);
  }

  /** The UTC days in [startMs, endMs) on which the visitor may have hits (the explorer then reads only those days' row groups). */
  async visitorDays(accountId: string, visitorId: string, startMs: number, endMs: number): Promise<number[]> {
    return this.visitors.days(accountId, visitorId, startMs, endMs);
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

  async getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    const keys = this.index.lookup(accountId, hitIds);
    if (keys.size === 0) return [];
    return this.reading((connection) => this.selectByKeys(connection, accountId, keys));
  }

  async getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]> {
    const keys = this.index.lookup(accountId, hitIds);
    if (keys.size === 0) return [];
    const where = byKeys(accountId, keys);
    return this.reading(async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT to_json(h)::VARCHAR FROM (SELECT ${selectHitState(read)} FROM hits WHERE ${where.sql}) AS h`,
        where.params,
      );
      return reader.getRows().map((values) => hitStateFromRow(JSON.parse(String(values[0])) as Record<string, unknown>));
    });
  }

  async findEntrances(accountId: string, query: EntranceQuery): Promise<Hit[]> {
    const sql = new Sql(accountId, query.timeStart, query.timeEnd);
    sql.where.push('is_entrance');
    sql.inList('id_funnel', query.funnelIds);
    sql.inList('id_traffic_source', query.trafficSourceIds);
    if (query.countryCode) sql.where.push(`country_code = ${sql.param(query.countryCode)}`);
    for (const condition of query.trackingFields ?? []) sql.where.push(`${trackingSlotColumn(condition.key)} = ${sql.param(condition.value)}`);
    return this.reading(async (connection) => {
      const hits = await readHits(connection, `SELECT ${SELECT_HIT} FROM hits WHERE ${sql.where.join(' AND ')}`, sql.params);
      // In hitId order (ids are ASCII: JS's order is DuckDB's).
      return hits.sort((a, b) => (a.hitId < b.hitId ? -1 : a.hitId > b.hitId ? 1 : 0));
    });
  }

  async countHits(accountId: string, filter: HitFilter): Promise<number> {
    const sql = hitFilterSql(accountId, filter);
    return this.reading(async (connection) => {
      const reader = await connection.runAndReadAll(`SELECT count(*) FROM hits WHERE ${sql.where.join(' AND ')}`, sql.params);
      return Number(reader.getRows()[0][0]);
    });
  }

  async appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    return (await this.appliedRowsOfJobs(accountId, [jobId])).get(jobId) ?? [];
  }

  async appliedRowsOfJobs(accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
    const generation = this.recordedIndexes.generation;
    const found = await this.reading((connection) => recordedRowsOfJobs(connection, accountId, jobIds));
    for (const jobId of jobIds)
      this.recordedIndexes.remember(
        accountId,
        jobId,
        (found.get(jobId) ?? []).map((row) => row.rowIndex),
        generation,
      );
    return found;
  }

  async commitRows(
    accountId: string,
    jobId: string,
    changed: readonly HitState[],
    rows: readonly AppliedRow[],
    fields?: readonly UpdatedField[],
  ): Promise<void> {
    return this.commitJobs(accountId, [{ jobId, changed, rows, fields }]);
  }

  /** One transaction: the hits' last states with one UPDATE, each job's rows as one record. */
  async commitJobs(accountId: string, jobs: readonly JobWrites[]): Promise<void> {
    // The last state of a hit named twice wins.
    const latest = new Map<string, HitState>();
    for (const job of jobs) for (const hit of job.changed) if (hit.accountId === accountId) latest.set(hit.hitId, hit);
    if (latest.size === 0 && jobs.every((job) => job.rows.length === 0)) return;
    await this.recording(
      accountId,
      jobs.map((job) => job.jobId),
      async (record) => {
        if (latest.size > 0) await this.updateStates(accountId, [...latest.values()], updatedFieldsOf(jobs));
        for (const job of jobs) record(job.jobId, job.rows);
      },
    );
  }

  /** Stages the hits' new states and writes the columns of `fields` with one UPDATE (inside the caller's transaction). */
  private async updateStates(accountId: string, hits: readonly HitState[], fields: ReadonlySet<UpdatedField>): Promise<void> {
    const columns = UPDATE_COLUMNS.filter((column) => fields.has(UPDATED_FIELD_OF_COLUMN[column]));
    const stored = new Set(columns);
    const times = hits.map((hit) => timeMs(hit.time));
    const appender = await this.writer.createAppender('staged_updates');
    try {
      // Column by column into one reused data chunk; a column the UPDATE leaves alone is staged empty, not computed.
      this.stagedChunks.append(appender, hits.length, (column, start) => {
        if (column === 'hit_id') return (row) => hits[start + row].hitId;
        if (column === 'time_ms') return (row) => times[start + row];
        if (!stored.has(column)) {
          const empty = EMPTY_STAGED_VALUES[column];
          return () => empty;
        }
        const value = HIT_COLUMN_VALUES[column];
        return (row) => value(hits[start + row] as unknown as Hit);
      });
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    // Bounded by the spans of the hits' times (see timeRanges): DuckDB reads only the row groups holding them.
    const spans = timeRangesSql('hits.time_ms', timeRanges(times), 2);
    await this.writer.run(
      `UPDATE hits SET ${columns.map((column) => `${column} = s.${column}`).join(', ')}
         FROM staged_updates s
         WHERE hits.account_id = $1 AND ${spans.sql} AND hits.hit_id = s.hit_id AND hits.time_ms = s.time_ms`,
      [accountId, ...spans.params],
    );
    await this.writer.run('DELETE FROM staged_updates');
  }

  async deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow> {
    const { row, removed } = await this.recording(accountId, [jobId], async (record) => {
      const recorded = (await recordedRowsOfJobs(this.writer, accountId, [jobId])).get(jobId)?.find((entry) => entry.rowIndex === rowIndex);
      if (recorded) return { row: recorded, removed: [] as string[] };
      const sql = hitFilterSql(accountId, filter);
      const reader = await this.writer.runAndReadAll(`DELETE FROM hits WHERE ${sql.where.join(' AND ')} RETURNING hit_id`, sql.params);
      const ids = reader.getRows().map((values) => String(values[0]));
      const applied: AppliedRow = { rowIndex, outcome: ids.length > 0 ? 'applied' : 'noop', hits: ids.length, postbacks: [] };
      record(jobId, [applied]);
      return { row: applied, removed: ids };
    });
    // After the commit: a crash before this line leaves keys without hits, which lookups skip.
    writingTo(HIT_WAREHOUSE, () => this.index.delete(accountId, removed));
    return row;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // After the writes queued before (of any store of the file); hits left in the log when the commit fails are written at the next open.
    const settled = this.shared.writes.then(() => (this.ingest?.writer === this.writer || this.logBehind ? this.settleIngest() : undefined));
    this.shared.writes = settled.catch(() => undefined);
    await settled.catch(() => undefined);
    this.releaseShared();
    for (const connection of this.idleReaders.splice(0)) connection.closeSync();
    this.writer.closeSync();
    this.sqlite.close();
    this.lease.release();
    tightenFile(`${this.filename}.wal`);
  }

  /** Appends warehouse rows to `hits` (inside the caller's transaction), a data chunk at a time. */
  private async append(rows: readonly WarehouseRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.appending((appender) => this.hitsChunks.appendRows(appender, rows));
  }

  /** An appender to `hits` for `write`, flushed into the open transaction when it is done. */
  private async appending(write: (appender: DuckDBAppender) => void): Promise<void> {
    const appender = await this.writer.createAppender('hits');
    try {
      write(appender);
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
  }

  /** The ids among `candidates` (which have keys) stored in the warehouse now. */
  private async storedIds(connection: DuckDBConnection, accountId: string, candidates: readonly string[], keys: Map<string, number>): Promise<Set<string>> {
    if (candidates.length === 0) return new Set();
    const where = byKeys(accountId, new Map(candidates.map((id) => [id, keys.get(id)!])));
    const reader = await connection.runAndReadAll(`SELECT hit_id FROM hits WHERE ${where.sql}`, where.params);
    return new Set(reader.getRows().map((values) => String(values[0])));
  }

  private async selectByKeys(connection: DuckDBConnection, accountId: string, keys: Map<string, number>): Promise<Hit[]> {
    const where = byKeys(accountId, keys);
    return readHits(connection, `SELECT ${SELECT_HIT} FROM hits WHERE ${where.sql}`, where.params);
  }

  /**
   * A transaction of its own that records rows of jobs among `jobIds` (`work` calls `record` for
   * them; the records are written after `work`, in the same transaction), after the writes before
   * it: RecordedRowIndexes learns the rows once they are committed, or forgets the jobs when the
   * transaction failed.
   */
  private recording<T>(
    accountId: string,
    jobIds: readonly string[],
    work: (record: (jobId: string, rows: readonly AppliedRow[]) => void) => Promise<T>,
  ): Promise<T> {
    return this.exclusive(async () => {
      const pending = new Map<string, AppliedRow[]>();
      let recorded = new Map<string, { fresh: number[]; known?: number[] }>();
      let result: T;
      try {
        result = await this.inTransaction(async () => {
          const value = await work((jobId, rows) => pending.set(jobId, [...(pending.get(jobId) ?? []), ...rows]));
          recorded = await this.recordRows(accountId, pending);
          return value;
        });
      } catch (error) {
        for (const jobId of jobIds) this.recordedIndexes.forget(accountId, jobId);
        throw error;
      }
      for (const [jobId, { fresh, known }] of recorded) this.recordedIndexes.recorded(accountId, jobId, fresh, known);
      return result;
    });
  }

  /**
   * One record per job of its rows, leaving out rows recorded before (inside the caller's
   * transaction): those RecordedRowIndexes holds for the job, else those the job's records hold
   * (`known`, read here, for every such job at once). Answers the indexes recorded now, by job.
   */
  private async recordRows(accountId: string, pending: Map<string, AppliedRow[]>): Promise<Map<string, { fresh: number[]; known?: number[] }>> {
    const result = new Map<string, { fresh: number[]; known?: number[] }>();
    const jobs = [...pending].filter(([, rows]) => rows.length > 0);
    if (jobs.length === 0) return result;
    const unheld = jobs.map(([jobId]) => jobId).filter((jobId) => !this.recordedIndexes.get(accountId, jobId));
    const read = unheld.length > 0 ? await recordedRowsOfJobs(this.writer, accountId, unheld) : new Map<string, AppliedRow[]>();
    const records: { jobId: string; firstRow: number; rows: string }[] = [];
    for (const [jobId, rows] of jobs) {
      const held = this.recordedIndexes.get(accountId, jobId);
      const known = held ? undefined : (read.get(jobId) ?? []).map((row) => row.rowIndex);
      const recorded = held ?? new Set(known);
      const fresh = rows.filter((row) => !recorded.has(row.rowIndex));
      result.set(jobId, { fresh: fresh.map((row) => row.rowIndex), known });
      if (fresh.length > 0) records.push({ jobId, firstRow: Math.min(...fresh.map((row) => row.rowIndex)), rows: JSON.stringify(fresh) });
    }
    if (records.length === 1)
      await this.writer.run('INSERT INTO job_batches (account_id, job_id, first_row, rows) VALUES ($1, $2, $3, $4)', [
        accountId,
        records[0].jobId,
        records[0].firstRow,
        records[0].rows,
      ]);
    else if (records.length > 1)
      await this.writer.run(
        'INSERT INTO job_batches (account_id, job_id, first_row, rows) SELECT $1, unnest($2::VARCHAR[]), unnest($3::INTEGER[]), unnest($4::VARCHAR[])',
        [accountId, listValue(records.map((r) => r.jobId)), listValue(records.map((r) => r.firstRow)), listValue(records.map((r) => r.rows))],
      );
    return result;
  }

  /** This store no longer uses what the file's stores share (the last one closes the ingest log). */
  private releaseShared(): void {
    if (--this.shared.users > 0) return;
    this.shared.log.close();
    sharedWriters.delete(this.lease.instance);
  }

  /** Runs `work` after the writes before it, with the ingested hits committed first (see `queued`). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.queued(async () => {
      await this.settleIngest();
      return work();
    });
  }

  /** Runs `work` after the writes before it (one write at a time on the writer connection). */
  private queued<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the hit warehouse is closed'));
    const result = this.shared.writes.then(work, work);
    this.shared.writes = result.catch(() => undefined);
    return result;
  }

  /** A transaction of its own, after the writes before it. */
  private transaction<T>(work: () => Promise<T>): Promise<T> {
    return this.exclusive(() => this.inTransaction(work));
  }

  /** BEGIN .. COMMIT around `work` on the writer (the caller holds `exclusive`); a storage failure is a StorageUnavailableError. */
  private async inTransaction<T>(work: () => Promise<T>): Promise<T> {
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
  private async reading<T>(read: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
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
}

async function createTables(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE TABLE IF NOT EXISTS hits (${WAREHOUSE_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  // Columns added since (appended, in WAREHOUSE_COLUMNS' order, so the appender's order still holds;
  // DuckDB adds no column with a constraint: the DEFAULT fills the rows already there).
  for (const column of WAREHOUSE_COLUMNS.filter((candidate) => (MIDDLEWARE_COLUMNS as readonly string[]).includes(candidate.name)))
    await connection.run(`ALTER TABLE hits ADD COLUMN IF NOT EXISTS ${column.name} ${column.duckdb.replace(' NOT NULL', '')}`);
  // Columns an earlier version kept (conversion times and payouts as lists, now read from `conversions`):
  // the appender writes exactly WAREHOUSE_COLUMNS.
  await connection.run(`CREATE TABLE IF NOT EXISTS staged_updates (${STAGED_COLUMNS.map((column) => `${column.name} ${column.duckdb}`).join(', ')})`);
  for (const table of ['hits', 'staged_updates'])
    for (const column of RETIRED_COLUMNS) await connection.run(`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}`);
  await connection.run(`CREATE TABLE IF NOT EXISTS job_batches (
    account_id VARCHAR NOT NULL,
    job_id     VARCHAR NOT NULL,
    first_row  INTEGER NOT NULL,
    rows       VARCHAR NOT NULL
  )`);
  await connection.run('CREATE TABLE IF NOT EXISTS warehouse_meta (key VARCHAR PRIMARY KEY, value VARCHAR NOT NULL)');
}

/** The recorded rows of each of the account's jobs among `jobIds` that has some, in rowIndex order. */
async function recordedRowsOfJobs(connection: DuckDBConnection, accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
  const found = new Map<string, AppliedRow[]>();
  if (jobIds.length === 0) return found;
  const reader =
    jobIds.length === 1
      ? await connection.runAndReadAll('SELECT job_id, rows FROM job_batches WHERE account_id = $1 AND job_id = $2', [accountId, jobIds[0]])
      : await connection.runAndReadAll('SELECT job_id, rows FROM job_batches WHERE account_id = $1 AND job_id IN (SELECT unnest($2::VARCHAR[]))', [
          accountId,
          listValue([...jobIds]),
        ]);
  for (const [jobId, rows] of reader.getRows()) {
    const list = found.get(String(jobId)) ?? [];
    found.set(String(jobId), list);
    list.push(...(JSON.parse(String(rows)) as AppliedRow[]));
  }
  for (const rows of found.values()) rows.sort((a, b) => a.rowIndex - b.rowIndex);
  return found;
}

/**
 * The hits a SELECT of SELECT_HIT finds, in its order. Each row comes back as one JSON text (DuckDB's
 * to_json), parsed in JS: about half the time of converting each of the ~75 values of a row to JS.
 */
async function readHits(connection: DuckDBConnection, select: string, params: DuckDBValue[]): Promise<Hit[]> {
  const reader = await connection.runAndReadAll(`SELECT to_json(h)::VARCHAR FROM (${select}) AS h`, params);
  return reader.getRows().map((values) => hitFromRow(JSON.parse(String(values[0])) as Record<string, unknown>));
}

/** `$1` account, `$2`..`$3` the keys' time span, `$4` their ids. */
/**
 * The account's hits of `keys` (hit id -> time, from the hit-key index) as a WHERE clause with its
 * parameters: bounded by the spans of their times (see timeRanges), so DuckDB reads only the row
 * groups holding them.
 */
function byKeys(accountId: string, keys: Map<string, number>): { sql: string; params: DuckDBValue[] } {
  const spans = timeRangesSql('time_ms', timeRanges(keys.values()), 3);
  return {
    sql: `account_id = $1 AND hit_id IN (SELECT unnest($2::VARCHAR[])) AND ${spans.sql}`,
    params: [accountId, listValue([...keys.keys()]), ...spans.params],
  };
}

/** The column of a tracking-field slot; a slot without one reads as "" (as the domain's rule has a missing field). */
function trackingSlotColumn(slot: string): string {
  return TRACKING_SLOTS.includes(slot) ? trackingColumn(slot) : "''";
}

/** A WHERE clause scoped to an account and a time window (start inclusive, end exclusive), with positional parameters. */
class Sql {
  readonly where: string[];
  readonly params: DuckDBValue[] = [];

  constructor(accountId: string, timeStart: string, timeEnd: string) {
    this.where = [
      `account_id = ${this.param(accountId)}`,
      `time_ms >= ${this.param(BigInt(timeMs(timeStart)))}`,
      `time_ms < ${this.param(BigInt(timeMs(timeEnd)))}`,
    ];
  }

  param(value: DuckDBValue): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  inList(column: string, values: readonly string[] | undefined): void {
    if (!values || values.length === 0) return;
    this.where.push(`${column} IN (SELECT unnest(${this.param(listValue([...values]))}::VARCHAR[]))`);
  }
}

function hitFilterSql(accountId: string, filter: HitFilter): Sql {
  const sql = new Sql(accountId, filter.timeStart, filter.timeEnd);
  sql.inList('id_funnel_group', filter.funnelGroupIds);
  sql.inList('id_funnel', filter.funnelIds);
  sql.inList('id_traffic_source', filter.trafficSourceIds);
  sql.inList('country_code', filter.countryCodes);
  sql.inList('visitor_id', filter.visitorIds);
  sql.inList('ip', filter.ips);
  for (const [slot, values] of Object.entries(filter.trackingFields ?? {})) sql.inList(trackingSlotColumn(slot), values);
  return sql;
}

/** The (account, visitor, UTC day) of new hits, each once. */
function visitorDaysOf(hits: readonly Hit[], timesMs: readonly number[]): VisitorDay[] {
  const seen = new Set<string>();
  const days: VisitorDay[] = [];
  hits.forEach((hit, i) => {
    const day = Math.floor(timesMs[i] / DAY_MS);
    const key = `${hit.accountId}\u0000${hit.visitorId}\u0000${day}`;
    if (seen.has(key)) return;
    seen.add(key);
    days.push({ accountId: hit.accountId, visitorId: hit.visitorId, day });
  });
  return days;
}
