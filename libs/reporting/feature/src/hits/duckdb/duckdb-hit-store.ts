import { join } from 'node:path';
import { listValue, type DuckDBAppender, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
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
import { RecordedRowIndexes } from './recorded-row-indexes';
import { importSqliteHits } from './sqlite-import';

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
 * - Writes run one at a time on the store's own connection; reads, and the queries of the reporting
 *   side (`warehouse.connect()`), on connections of their own, which see committed data only.
 *   DuckDB allows one process per file: a second process gets a WarehouseInUseError.
 */
export class DuckDbHitStore implements HitStore {
  readonly warehouse: HitWarehouse;
  private writes: Promise<unknown> = Promise.resolve();
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
    this.warehouse = { engine: 'duckdb', hitsTable: 'hits', connect: () => lease.instance.connect() };
  }

  static async open(options: DuckDbHitStoreOptions): Promise<DuckDbHitStore> {
    const fileName = options.fileName ?? 'reporting.duckdb';
    const indexFileName = options.indexFileName ?? 'reporting.sqlite';
    ensurePrivateDirectory(options.dataDir, [fileName, indexFileName]);
    const filename = join(options.dataDir, fileName);
    const lease = await leaseInstance(filename);
    // DuckDB creates its files with the process's umask (it refuses an empty file made beforehand): made
    // private at once, inside a directory only this user can enter.
    writingTo(HIT_WAREHOUSE, () => tightenFile(filename));
    let sqlite: Database.Database | undefined;
    let writer: DuckDBConnection | undefined;
    try {
      writer = await lease.instance.connect();
      await createTables(writer);
      sqlite = openPrivateSqlite(join(options.dataDir, indexFileName));
      const store = new DuckDbHitStore(lease, writer, sqlite, new HitKeyIndex(sqlite), filename);
      await importSqliteHits({ sqlite, index: store.index, writer, transaction: (work) => store.transaction(work), append: (rows) => store.append(rows) });
      await store.buildVisitorDays();
      return store;
    } catch (error) {
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
    this.exclusive(() => this.insertWaiting()).catch((error: unknown) => {
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
    const clicks: { accountId: string; counts: Map<string, number>; times: number[] }[] = [];
    for (const [accountId, positions] of byAccount) {
      const accountHits = [...positions.values()].map((position) => hits[position]);
      const previousIds = accountHits.filter((hit) => hit.action > 0 && hit.previousHitId !== '').map((hit) => hit.previousHitId);
      const keys = this.index.lookup(accountId, [...new Set([...positions.keys(), ...previousIds])]);
      const stored = await this.storedIds(
        this.writer,
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
      const times: number[] = [];
      for (const hit of accountHits) {
        if (stored.has(hit.hitId) || hit.action === 0 || hit.previousHitId === '') continue;
        const inBatch = rows.get(hit.previousHitId);
        if (inBatch !== undefined && countsAsClick(hit, freshTimes[inBatch])) batchClicks[inBatch]++;
        else if (inBatch === undefined && keys.has(hit.previousHitId) && countsAsClick(hit, keys.get(hit.previousHitId)!)) {
          counts.set(hit.previousHitId, (counts.get(hit.previousHitId) ?? 0) + 1);
          times.push(keys.get(hit.previousHitId)!);
        }
      }
      if (counts.size > 0) clicks.push({ accountId, counts, times });
    }
    if (fresh.length === 0) return inserted;
    // Keys and visitor days first (see HitKeyIndex): a crash before the hits' commit leaves keys without hits, never the reverse.
    writingTo(HIT_WAREHOUSE, () => this.visitors.write(visitorDaysOf(fresh, freshTimes)));
    writingTo(HIT_WAREHOUSE, () => this.index.write(fresh.map((hit, i) => ({ accountId: hit.accountId, hitId: hit.hitId, timeMs: freshTimes[i] }))));
    await this.inTransaction(async () => {
      await this.appendHits(fresh, freshTimes, batchClicks);
      for (const { accountId, counts, times } of clicks) {
        await this.writer.run(
          `UPDATE hits SET clicks = clicks + u.n
             FROM (SELECT unnest($2::VARCHAR[]) AS id, unnest($3::UINTEGER[]) AS n) u
             WHERE hits.account_id = $1 AND hits.time_ms BETWEEN $4 AND $5 AND hits.hit_id = u.id`,
          [accountId, listValue([...counts.keys()]), listValue([...counts.values()]), BigInt(Math.min(...times)), BigInt(Math.max(...times))],
        );
      }
    });
    return inserted;
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
    return this.reading(async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT to_json(h)::VARCHAR FROM (SELECT ${selectHitState(read)} FROM hits
           WHERE account_id = $1 AND time_ms BETWEEN $2 AND $3 AND hit_id IN (SELECT unnest($4::VARCHAR[]))) AS h`,
        boundsParams(accountId, keys),
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
    // Bounded by the hits' times: DuckDB reads only the row groups holding them.
    await this.writer.run(
      `UPDATE hits SET ${columns.map((column) => `${column} = s.${column}`).join(', ')}
         FROM staged_updates s
         WHERE hits.account_id = $1 AND hits.time_ms BETWEEN $2 AND $3 AND hits.hit_id = s.hit_id AND hits.time_ms = s.time_ms`,
      [accountId, BigInt(Math.min(...times)), BigInt(Math.max(...times))],
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
    await this.writes.catch(() => undefined);
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

  /**
   * Appends hits to `hits` (inside the caller's transaction) column by column, straight from the
   * hits: `times` their time_ms, `clicks` the clicks counted on them besides their own.
   */
  private async appendHits(hits: readonly Hit[], times: readonly number[], clicks: readonly number[]): Promise<void> {
    await this.appending((appender) =>
      this.hitsChunks.append(appender, hits.length, (column, start) => {
        if (column === 'time_ms') return (row) => times[start + row];
        if (column === 'clicks') return (row) => hits[start + row].clicks + clicks[start + row];
        const value = HIT_COLUMN_VALUES[column];
        return (row) => value(hits[start + row]);
      }),
    );
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
    const known = new Map(candidates.map((id) => [id, keys.get(id)!]));
    const reader = await connection.runAndReadAll(
      `SELECT hit_id FROM hits WHERE account_id = $1 AND time_ms BETWEEN $2 AND $3 AND hit_id IN (SELECT unnest($4::VARCHAR[]))`,
      boundsParams(accountId, known),
    );
    return new Set(reader.getRows().map((values) => String(values[0])));
  }

  private async selectByKeys(connection: DuckDBConnection, accountId: string, keys: Map<string, number>): Promise<Hit[]> {
    return readHits(
      connection,
      `SELECT ${SELECT_HIT} FROM hits WHERE account_id = $1 AND time_ms BETWEEN $2 AND $3 AND hit_id IN (SELECT unnest($4::VARCHAR[]))`,
      boundsParams(accountId, keys),
    );
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

  /** Runs `work` after the writes before it (one write at a time on the writer connection). */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the hit warehouse is closed'));
    const result = this.writes.then(work, work);
    this.writes = result.catch(() => undefined);
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
function boundsParams(accountId: string, keys: Map<string, number>): DuckDBValue[] {
  const times = [...keys.values()];
  return [accountId, BigInt(Math.min(...times)), BigInt(Math.max(...times)), listValue([...keys.keys()])];
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
