import type { DuckDBConnection } from '@duckdb/node-api';
import type { ClickHouseClient } from '@clickhouse/client';
import type { EntranceQuery, Hit, HitFilter, PostbackIntent } from '@funnel/reporting-domain';

/**
 * The hit warehouse. Adapters: embedded DuckDB under DATA_DIR (default) and ClickHouse
 * (`CLICKHOUSE_URL`). One contract suite runs against both.
 *
 * Every call is scoped to one account. Time windows are start inclusive, end exclusive.
 * Idempotency of reporting jobs rests on the applied-row markers: a job's rows are recorded in the
 * same write that applies them (`commitRows`, `deleteHits`), so a redelivered job skips the rows it
 * already applied and reads back their recorded outcomes.
 */
export const HIT_STORE = Symbol('HIT_STORE');

/** What a row of a job came to (the job's counts add these up). */
export type RowOutcome = 'applied' | 'noop' | 'notFound' | 'failed';

/** A job row's recorded outcome: written with the row's changes, read back when the job is redelivered. */
export interface AppliedRow {
  rowIndex: number;
  outcome: RowOutcome;
  /** Why the row failed (outcome `failed`). */
  error?: string;
  /** Hits the row changed or removed. */
  hits: number;
  /** The postbacks the row decided on. */
  postbacks: PostbackIntent[];
}

/**
 * What a reporting update reads of a hit and may change: its key and time, what its postback
 * decisions and URLs read (funnel, traffic source, tracking fields), and the fields updates change
 * (conversions, cost, custom events, postbackCalled). Tracking fields and custom events come
 * without their empty slots, as a Hit has them. A Hit is a HitState.
 */
export type HitState = Pick<
  Hit,
  'accountId' | 'hitId' | 'time' | 'idFunnel' | 'idTrafficSource' | 'trackingFields' | 'cost' | 'conversions' | 'customEvents' | 'postbackCalled'
>;

/**
 * The groups of fields updates change, each read and written as one: `conversions` (with
 * postbackCalled, and the count and revenue the warehouse keeps beside them), `cost`, `customEvents`.
 */
export type UpdatedField = 'conversions' | 'cost' | 'customEvents';
export const UPDATED_FIELDS: readonly UpdatedField[] = ['conversions', 'cost', 'customEvents'];

/**
 * What a read of hit states leaves out (`getHitStates`), each absent part meaning all of it:
 * `trackingSlots` the tracking-field slots read (a state's `trackingFields` then holds only those),
 * `fields` the updated fields read (the others come empty: no conversions, postbackCalled false, cost
 * "0", no custom events). Such a state is committed with the same `fields` (tracking fields are never
 * written). Each column a read names costs the embedded store a scan of it.
 */
export interface StateRead {
  trackingSlots?: readonly string[];
  fields?: readonly UpdatedField[];
}

/** One job's writes in `commitJobs`: what it would pass to `commitRows`. */
export interface JobWrites {
  jobId: string;
  changed: readonly HitState[];
  rows: readonly AppliedRow[];
  /** The fields of `changed` stored (absent: all). */
  fields?: readonly UpdatedField[];
}

export interface InsertHitsResult {
  inserted: number;
  /** Hits whose hitId was already stored for the account: left as they are. */
  ignored: number;
}

/**
 * Where the reporting queries read the warehouse's hits table (`hits` in DuckDB, `hitsTable` in
 * ClickHouse; columns: WAREHOUSE_COLUMNS). DuckDB: a connection of the store's own instance (one
 * process per file), which sees committed writes only and never holds the writer up beyond what
 * DuckDB itself does; close it (`closeSync`) when done. ClickHouse: the store's client; read the
 * latest versions only (`FINAL`, `deleted = 0`).
 */
export type HitWarehouse =
  { engine: 'duckdb'; hitsTable: 'hits'; connect(): Promise<DuckDBConnection> } | { engine: 'clickhouse'; client: ClickHouseClient; hitsTable: string };

/** What the appliers of reporting jobs use of a hit store. */
export type JobStore = Pick<HitStore, 'appliedRows' | 'getHitStates' | 'findEntrances' | 'countHits' | 'commitRows' | 'deleteHits'>;

export interface HitStore {
  /** The read side of the warehouse, for the reporting queries. */
  readonly warehouse: HitWarehouse;
  /**
   * Ingest: stores new hits (any accounts); a hitId already stored for its account is ignored. A new
   * hit with `action` > 0 counts a click on its `previousHitId` (same account) when that hit is stored
   * (earlier or in the same call) and at most 48 h before it: a click counts when the action hit
   * arrives after its previous hit.
   */
  insertHits(hits: readonly Hit[]): Promise<InsertHitsResult>;
  /** The account's hits among `hitIds` (unknown ids are left out), in no particular order. */
  getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]>;
  /**
   * Where the store keeps a visitor index (the embedded one): the UTC days (epoch ms / 86,400,000) in
   * [startMs, endMs) on which the visitor may have hits, never missing one; absent: unknown, read the window.
   */
  visitorDays?(accountId: string, visitorId: string, startMs: number, endMs: number): Promise<number[]>;
  /**
   * The states of the account's hits among `hitIds` (unknown ids are left out), in no particular
   * order: the apply path's read, about half the columns of `getHits`; `read` narrows it (StateRead):
   * tracking fields are 22 of its columns and custom events 10, so a conversions job that builds no
   * postback reads 7.
   */
  getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]>;
  /** The account's entrance hits a cost segment covers, in hitId order. */
  findEntrances(accountId: string, query: EntranceQuery): Promise<Hit[]>;
  /** The number of the account's hits a reset with `filter` would remove now. */
  countHits(accountId: string, filter: HitFilter): Promise<number>;
  /** The rows of job `jobId` already recorded, in rowIndex order. */
  appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]>;
  /** `appliedRows` of each of the account's `jobIds` at once (a job with no rows recorded is left out). */
  appliedRowsOfJobs(accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>>;
  /**
   * In one atomic write: stores the new state of the account's hits in `changed` (the fields updates
   * change: conversions, cost, customEvents, postbackCalled; hits no longer stored are skipped) and
   * records `rows` as applied for job `jobId`. A row already recorded is not recorded again.
   * `fields`: the fields of `changed` stored, the others left as they are (absent: all; see StateRead).
   */
  commitRows(accountId: string, jobId: string, changed: readonly HitState[], rows: readonly AppliedRow[], fields?: readonly UpdatedField[]): Promise<void>;
  /**
   * `commitRows` of several jobs of the account, in order (a later job's state of a hit stands over
   * an earlier one's). Each job's rows are recorded in the same write as its changes, and no job's
   * changes are stored without the rows of the jobs before it: the embedded store writes them all in
   * one transaction, ClickHouse one job after the other.
   */
  commitJobs(accountId: string, jobs: readonly JobWrites[]): Promise<void>;
  /**
   * In one atomic write: removes the account's hits matching `filter` and records row `rowIndex` of
   * job `jobId` with the number removed. When that row is already recorded nothing is removed and
   * the recorded row is returned.
   */
  deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow>;
  close(): Promise<void>;
}
