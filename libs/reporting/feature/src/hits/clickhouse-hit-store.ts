import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { timeMs, type EntranceQuery, type Hit, type HitFilter } from '@funnel/reporting-domain';
import { HIT_READ_COLUMNS, countsAsClick, hitFromRow, warehouseRow, type WarehouseValue } from './hit-row';
import { CUSTOM_EVENT_ENTRIES, hitStateFromRow, hitStateSelects } from './hit-state';
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
} from './hit-store';
import { CUSTOM_EVENT_NUMBERS, TRACKING_SLOTS, WAREHOUSE_COLUMNS, customEventColumn, trackingColumn } from './warehouse-schema';

/** Where the store connects: `CLICKHOUSE_URL`, or a client of the caller's (which the caller closes). */
export type ClickHouseHitStoreOptions = (
  | {
      /** `CLICKHOUSE_URL`, e.g. `http://user:password@host:8123/database`. */
      url: string;
    }
  | { client: ClickHouseClient }
) & {
  /** Table name prefix (default `reporting_`); tests use their own to stay apart. */
  tablePrefix?: string;
};

/** A hit as a row of the ClickHouse table (JSONEachRow): the warehouse columns (time_ms is computed), `time`, and the version columns. */
type HitRecord = Record<string, WarehouseValue | Record<string, string>>;

const SELECT_HIT = HIT_READ_COLUMNS.map((column) =>
  column === 'time_ms' ? 'toUnixTimestamp64Milli(time) AS time_ms' : column === 'cost' ? 'toString(cost) AS cost' : column,
).join(', ');

/** A Map of the entries (key, column) whose value passes `keep` (a lambda body on `v`). */
const mapOf = (entries: readonly [string, string][], keep: string) =>
  `mapFilter((k, v) -> ${keep}, map(${entries.map(([key, column]) => `'${key}', ${column}`).join(', ')}))`;

/** HIT_STATE_COLUMNS, or those of a StateRead (no tracking field: an empty map). */
const selectHitState = hitStateSelects(({ trackingEntries, fields }) =>
  [
    'account_id',
    'hit_id',
    'toUnixTimestamp64Milli(time) AS time_ms',
    'id_funnel',
    'id_traffic_source',
    `${trackingEntries.length > 0 ? mapOf(trackingEntries, "v != ''") : 'map()'} AS tracking_fields`,
    ...(fields.has('cost') ? ['toString(cost) AS cost'] : []),
    ...(fields.has('conversions') ? ['conversions', 'postback_called'] : []),
    ...(fields.has('customEvents') ? [`${mapOf(CUSTOM_EVENT_ENTRIES, 'v > 0')} AS custom_events`] : []),
  ].join(', '),
);

/** The columns of the first version's table; the others are added to it (with values computed from these for the rows it holds). */
const FIRST_COLUMNS = new Set([
  'account_id',
  'hit_id',
  'visitor_id',
  'id_funnel',
  'id_funnel_group',
  'id_traffic_source',
  'id_node',
  'id_page',
  'country_code',
  'ip',
  'is_entrance',
  'cost',
  'conversions',
  'postback_called',
]);

const PAYOUTS = "arrayMap(c -> toDecimal64(JSONExtractString(c, 'payout'), 6), JSONExtractArrayRaw(conversions))";

/** The type and default of a column added to a first-version table: what the row's old columns say, where they say it. */
function addedColumnType(name: string, declared: string): string {
  const slot = TRACKING_SLOTS.find((candidate) => trackingColumn(candidate) === name);
  if (slot !== undefined) return `String DEFAULT tracking_fields['${slot}']`;
  const n = CUSTOM_EVENT_NUMBERS.find((candidate) => customEventColumn(candidate) === name);
  if (n !== undefined) return `UInt32 DEFAULT toUInt32(JSONExtractUInt(custom_events, '${n}'))`;
  if (name === 'conversion_count') return 'UInt32 DEFAULT toUInt32(JSONLength(conversions))';
  if (name === 'revenue') return `Decimal(18, 6) DEFAULT arraySum(${PAYOUTS})`;
  return declared;
}

/**
 * The hit warehouse on ClickHouse, written the ClickHouse way: no row is updated in place.
 *
 * - `<prefix>hits` is a ReplacingMergeTree(version, deleted) ordered by (account_id, time, hit_id)
 *   and partitioned by month: an update inserts the hit's whole new row with a higher version, a reset
 *   inserts the row again with `deleted = 1`; reads use FINAL, so they see the latest version only.
 *   Versions come from the clock (microseconds, a counter breaking ties), so a newer write wins.
 * - `<prefix>job_batches` (ReplacingMergeTree ordered by account, job, first row) records each applied
 *   batch of a job: its rows' outcomes and the hit rows it wrote. The batch is recorded first, then
 *   its hit rows are inserted. ClickHouse has no transaction across the two inserts, so a process dying
 *   between them leaves a recorded batch whose hit rows may be missing: `appliedRows` (which the
 *   appliers call before applying a job) inserts the recorded hit rows of the job's batches again.
 *   Same key, same version: ReplacingMergeTree keeps one, and any later write (a higher version) wins.
 * - The columns are WAREHOUSE_COLUMNS (plus `time`, `version`, `deleted`, and the first version's
 *   `tracking_fields` and `custom_events`, still written). A table of the first version gets the new
 *   columns at connect (ADD COLUMN IF NOT EXISTS), their defaults computed from the old columns.
 * - Clicks: an ingested action hit writes its previous hit again with `clicks + 1`. Two ingests of
 *   action hits on the same previous hit at the same moment may count one click (no transaction).
 */
export class ClickHouseHitStore implements HitStore {
  private lastVersion = 0;
  readonly warehouse: HitWarehouse;

  private constructor(
    private readonly client: ClickHouseClient,
    private readonly hitsTable: string,
    private readonly batchesTable: string,
    private readonly ownsClient: boolean,
  ) {
    this.warehouse = { engine: 'clickhouse', client, hitsTable };
  }

  static async connect(options: ClickHouseHitStoreOptions): Promise<ClickHouseHitStore> {
    const prefix = options.tablePrefix ?? 'reporting_';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) throw new Error(`ClickHouse table prefix must be an identifier: ${prefix}`);
    const owned = 'url' in options;
    const client = owned ? createClient({ url: options.url, request_timeout: 60_000 }) : options.client;
    const store = new ClickHouseHitStore(client, `${prefix}hits`, `${prefix}job_batches`, owned);
    try {
      await store.createTables();
    } catch (error) {
      if (owned) await client.close();
      throw error;
    }
    return store;
  }

  private async createTables(): Promise<void> {
    await this.client.command({
      query: `CREATE TABLE IF NOT EXISTS ${this.hitsTable} (
        account_id        String,
        hit_id            String,
        visitor_id        String,
        id_funnel         String,
        id_funnel_group   String,
        id_traffic_source String,
        id_node           String,
        id_page           String,
        country_code      LowCardinality(String),
        ip                String,
        tracking_fields   Map(String, String),
        time              DateTime64(3, 'UTC'),
        is_entrance       UInt8,
        cost              Decimal(18, 6),
        conversions       String,
        custom_events     String,
        postback_called   UInt8,
        version           UInt64,
        deleted           UInt8,
        INDEX hit_id_bloom hit_id TYPE bloom_filter GRANULARITY 4
      ) ENGINE = ReplacingMergeTree(version, deleted)
      PARTITION BY toYYYYMM(time)
      ORDER BY (account_id, time, hit_id)`,
    });
    for (const column of WAREHOUSE_COLUMNS.filter((candidate) => !FIRST_COLUMNS.has(candidate.name)))
      await this.client.command({
        query: `ALTER TABLE ${this.hitsTable} ADD COLUMN IF NOT EXISTS ${column.name} ${addedColumnType(column.name, column.clickhouse)}`,
      });
    await this.client.command({
      query: `CREATE TABLE IF NOT EXISTS ${this.batchesTable} (
        account_id String,
        job_id     String,
        first_row  UInt32,
        rows       String,
        writes     String,
        version    UInt64
      ) ENGINE = ReplacingMergeTree(version)
      ORDER BY (account_id, job_id, first_row)`,
    });
  }

  async insertHits(hits: readonly Hit[]): Promise<InsertHitsResult> {
    const byAccount = new Map<string, Map<string, Hit>>();
    for (const hit of hits) {
      const accountHits = byAccount.get(hit.accountId) ?? new Map<string, Hit>();
      byAccount.set(hit.accountId, accountHits);
      // The first of repeated ids wins, as in the embedded store.
      if (!accountHits.has(hit.hitId)) accountHits.set(hit.hitId, hit);
    }
    const fresh: HitRecord[] = [];
    const clicked: HitRecord[] = [];
    for (const [accountId, accountHits] of byAccount) {
      const stored = new Set((await this.getHits(accountId, [...accountHits.keys()])).map((hit) => hit.hitId));
      const version = this.nextVersion();
      const rows = new Map<string, Hit>();
      for (const hit of accountHits.values()) if (!stored.has(hit.hitId)) rows.set(hit.hitId, { ...hit });
      const actions = [...rows.values()].filter((hit) => hit.action > 0 && hit.previousHitId !== '');
      const earlier = new Map(
        (await this.getHits(accountId, [...new Set(actions.map((hit) => hit.previousHitId).filter((id) => !rows.has(id)))])).map((hit) => [hit.hitId, hit]),
      );
      const bumped = new Set<Hit>();
      for (const hit of actions) {
        const previous = rows.get(hit.previousHitId) ?? earlier.get(hit.previousHitId);
        if (!previous || !countsAsClick(hit, timeMs(previous.time))) continue;
        previous.clicks += 1;
        bumped.add(previous);
      }
      for (const hit of rows.values()) fresh.push(toRecord(hit, version, 0));
      for (const hit of earlier.values()) if (bumped.has(hit)) clicked.push(toRecord(hit, version, 0));
    }
    await this.insertRecords([...fresh, ...clicked]);
    return { inserted: fresh.length, ignored: hits.length - fresh.length };
  }

  async getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    if (hitIds.length === 0) return [];
    return this.selectHits('hit_id IN {hitIds:Array(String)}', { accountId, hitIds: [...hitIds] });
  }

  async getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]> {
    if (hitIds.length === 0) return [];
    const result = await this.client.query({
      query: `SELECT ${selectHitState(read)} FROM ${this.hitsTable} FINAL
        WHERE account_id = {accountId:String} AND deleted = 0 AND hit_id IN {hitIds:Array(String)}`,
      query_params: { accountId, hitIds: [...hitIds] },
      format: 'JSONEachRow',
    });
    return (await result.json<Record<string, unknown>>()).map(hitStateFromRow);
  }

  async findEntrances(accountId: string, query: EntranceQuery): Promise<Hit[]> {
    const where = ['is_entrance = 1', 'time >= fromUnixTimestamp64Milli({start:Int64})', 'time < fromUnixTimestamp64Milli({end:Int64})'];
    const params: Record<string, unknown> = { accountId, start: timeMs(query.timeStart), end: timeMs(query.timeEnd) };
    if (query.funnelIds.length > 0) {
      where.push('id_funnel IN {funnelIds:Array(String)}');
      params['funnelIds'] = [...query.funnelIds];
    }
    if (query.trafficSourceIds.length > 0) {
      where.push('id_traffic_source IN {trafficSourceIds:Array(String)}');
      params['trafficSourceIds'] = [...query.trafficSourceIds];
    }
    if (query.countryCode) {
      where.push('country_code = {countryCode:String}');
      params['countryCode'] = query.countryCode;
    }
    (query.trackingFields ?? []).forEach((condition, index) => {
      // A missing key reads as "" from a Map, as the domain's rule has it.
      where.push(`${trackingSlotColumn(condition.key)} = {value${index}:String}`);
      params[`value${index}`] = condition.value;
    });
    const hits = await this.selectHits(where.join(' AND '), params);
    return hits.sort((a, b) => (a.hitId < b.hitId ? -1 : a.hitId > b.hitId ? 1 : 0));
  }

  async countHits(accountId: string, filter: HitFilter): Promise<number> {
    const { where, params } = hitFilterSql(filter);
    const result = await this.client.query({
      query: `SELECT count() AS n FROM ${this.hitsTable} FINAL WHERE account_id = {accountId:String} AND deleted = 0 AND ${where}`,
      query_params: { accountId, ...params },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ n: string | number }>();
    return Number(row?.n ?? 0);
  }

  async appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    const batches = await this.batches(accountId, jobId);
    // Batches recorded before their hit rows were all written: write them again (see the class comment).
    await this.insertRecords(batches.flatMap((batch) => JSON.parse(batch.writes) as HitRecord[]));
    return batches.flatMap((batch) => JSON.parse(batch.rows) as AppliedRow[]).sort((a, b) => a.rowIndex - b.rowIndex);
  }

  async appliedRowsOfJobs(accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
    const found = new Map<string, AppliedRow[]>();
    for (const jobId of new Set(jobIds)) {
      const rows = await this.appliedRows(accountId, jobId);
      if (rows.length > 0) found.set(jobId, rows);
    }
    return found;
  }

  /** One job after the other: each job's rows are recorded with its own writes (see commitRows). */
  async commitJobs(accountId: string, jobs: readonly JobWrites[]): Promise<void> {
    for (const job of jobs) await this.commitRows(accountId, job.jobId, job.changed, job.rows, job.fields);
  }

  async commitRows(
    accountId: string,
    jobId: string,
    changed: readonly HitState[],
    rows: readonly AppliedRow[],
    fields?: readonly UpdatedField[],
  ): Promise<void> {
    if (rows.length === 0 && changed.length === 0) return;
    const recorded = new Set((await this.batches(accountId, jobId)).flatMap((batch) => (JSON.parse(batch.rows) as AppliedRow[]).map((row) => row.rowIndex)));
    const fresh = rows.filter((row) => !recorded.has(row.rowIndex));
    if (fresh.length === 0) return;
    // Only hits still stored are written: an update must not bring back a hit a reset removed.
    const stored = new Map(
      (
        await this.getHits(
          accountId,
          changed.map((hit) => hit.hitId),
        )
      ).map((hit) => [hit.hitId, hit]),
    );
    const version = this.nextVersion();
    const writes = changed
      .filter((hit) => stored.has(hit.hitId))
      .map((hit) => toRecord({ ...stored.get(hit.hitId)!, ...updatedFieldsOf(hit, fields) }, version, 0));
    await this.recordBatch(accountId, jobId, fresh, writes, version);
    await this.insertRecords(writes);
  }

  async deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow> {
    const recorded = (await this.appliedRows(accountId, jobId)).find((row) => row.rowIndex === rowIndex);
    if (recorded) return recorded;
    const { where, params } = hitFilterSql(filter);
    const doomed = await this.selectHits(where, { accountId, ...params });
    const version = this.nextVersion();
    // A tombstone needs only the sorting key, the version and the flag; the other columns take their defaults.
    const tombstones = doomed.map((hit) => ({ account_id: accountId, hit_id: hit.hitId, time: clickHouseTime(hit.time), version, deleted: 1 }));
    const row: AppliedRow = { rowIndex, outcome: doomed.length > 0 ? 'applied' : 'noop', hits: doomed.length, postbacks: [] };
    await this.recordBatch(accountId, jobId, [row], tombstones, version);
    await this.insertRecords(tombstones);
    return row;
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.close();
  }

  private async selectHits(where: string, params: Record<string, unknown>): Promise<Hit[]> {
    const result = await this.client.query({
      query: `SELECT ${SELECT_HIT} FROM ${this.hitsTable} FINAL WHERE account_id = {accountId:String} AND deleted = 0 AND ${where}`,
      query_params: params,
      format: 'JSONEachRow',
    });
    // toString of a Decimal may keep trailing zeros, depending on the server version: hitFromRow normalizes it.
    return (await result.json<Record<string, unknown>>()).map(hitFromRow);
  }

  private async batches(accountId: string, jobId: string): Promise<{ rows: string; writes: string }[]> {
    const result = await this.client.query({
      query: `SELECT rows, writes FROM ${this.batchesTable} FINAL WHERE account_id = {accountId:String} AND job_id = {jobId:String} ORDER BY first_row`,
      query_params: { accountId, jobId },
      format: 'JSONEachRow',
    });
    return result.json<{ rows: string; writes: string }>();
  }

  private async recordBatch(accountId: string, jobId: string, rows: readonly AppliedRow[], writes: readonly HitRecord[], version: number): Promise<void> {
    await this.client.insert({
      table: this.batchesTable,
      format: 'JSONEachRow',
      values: [
        {
          account_id: accountId,
          job_id: jobId,
          first_row: Math.min(...rows.map((row) => row.rowIndex)),
          rows: JSON.stringify(rows),
          writes: JSON.stringify(writes),
          version,
        },
      ],
    });
  }

  private async insertRecords(records: readonly HitRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.client.insert({ table: this.hitsTable, format: 'JSONEachRow', values: [...records] });
  }

  /** Microseconds since the epoch, strictly increasing in this process (fits a double exactly until 2255). */
  private nextVersion(): number {
    this.lastVersion = Math.max(this.lastVersion + 1, Date.now() * 1000);
    return this.lastVersion;
  }
}

function toRecord(hit: Hit, version: number, deleted: 0 | 1): HitRecord {
  const { time_ms: _computed, ...columns } = warehouseRow(hit);
  return {
    ...columns,
    time: clickHouseTime(hit.time),
    is_entrance: hit.isEntrance ? 1 : 0,
    postback_called: hit.postbackCalled ? 1 : 0,
    // The first version's columns, still written: the added columns' defaults read them.
    tracking_fields: hit.trackingFields,
    custom_events: JSON.stringify(hit.customEvents),
    version,
    deleted,
  };
}

/** The column of a tracking-field slot; a slot without one reads as "" (as the domain's rule has a missing field). */
function trackingSlotColumn(slot: string): string {
  return TRACKING_SLOTS.includes(slot) ? trackingColumn(slot) : "''";
}

/** ISO 8601 -> `YYYY-MM-DD hh:mm:ss.sss` in UTC, the text a DateTime64(3, 'UTC') column reads. */
function clickHouseTime(iso: string): string {
  return new Date(timeMs(iso)).toISOString().replace('T', ' ').replace('Z', '');
}

function hitFilterSql(filter: HitFilter): { where: string; params: Record<string, unknown> } {
  const where = ['time >= fromUnixTimestamp64Milli({start:Int64})', 'time < fromUnixTimestamp64Milli({end:Int64})'];
  const params: Record<string, unknown> = { start: timeMs(filter.timeStart), end: timeMs(filter.timeEnd) };
  const lists: [string, readonly string[] | undefined][] = [
    ['id_funnel_group', filter.funnelGroupIds],
    ['id_funnel', filter.funnelIds],
    ['id_traffic_source', filter.trafficSourceIds],
    ['country_code', filter.countryCodes],
    ['visitor_id', filter.visitorIds],
    ['ip', filter.ips],
  ];
  for (const [column, values] of lists) {
    if (!values || values.length === 0) continue;
    where.push(`${column} IN {${column}:Array(String)}`);
    params[column] = [...values];
  }
  Object.entries(filter.trackingFields ?? {}).forEach(([slot, values], index) => {
    if (values.length === 0) return;
    where.push(`${trackingSlotColumn(slot)} IN {values${index}:Array(String)}`);
    params[`values${index}`] = [...values];
  });
  return { where: where.join(' AND '), params };
}

/** The values of a hit state's `fields` (absent: all), as a Hit has them. */
function updatedFieldsOf(hit: HitState, fields: readonly UpdatedField[] = UPDATED_FIELDS): Partial<HitState> {
  const values: Partial<HitState> = {};
  for (const field of fields) {
    if (field === 'conversions') Object.assign(values, { conversions: hit.conversions, postbackCalled: hit.postbackCalled });
    else if (field === 'cost') values.cost = hit.cost;
    else values.customEvents = hit.customEvents;
  }
  return values;
}
