import Database from 'better-sqlite3';
import { openPrivateSqlite, writingTo } from '@funnel/eventstore';
import { timeMs, type EntranceQuery, type Hit, type HitFilter } from '@funnel/reporting-domain';
import { hitFromRow, type HitRow } from './hit-row';
import type { AppliedRow, HitStore, InsertHitsResult } from './hit-store';

/** The store's name in storage errors (StorageUnavailableError.store). */
const HIT_WAREHOUSE = 'hit warehouse';

export interface SqliteHitStoreOptions {
  /** Path of the database file, or `:memory:` (tests only). */
  filename: string;
}

const HIT_COLUMNS =
  'account_id, hit_id, visitor_id, id_funnel, id_funnel_group, id_traffic_source, id_node, id_page, country_code, ip, tracking_fields, time_ms, is_entrance, cost, conversions, custom_events, postback_called';

/**
 * The embedded hit warehouse: one SQLite file (WAL) under DATA_DIR. Hits are keyed (account, hitId)
 * in a clustered table and indexed by (account, time); the JSON columns (tracking fields,
 * conversions, custom events) are read with SQLite's JSON functions where a filter needs them.
 * Applied job rows are recorded per batch (one JSON record of the batch's rows) in their own table,
 * in the same transaction as the batch's changes.
 */
export class SqliteHitStore implements HitStore {
  private readonly db: Database.Database;
  private readonly insertHit: Database.Statement;
  private readonly selectByIds: Database.Statement<[string, string], HitRow>;
  private readonly updateHit: Database.Statement;
  private readonly insertBatch: Database.Statement;
  private readonly selectBatches: Database.Statement<[string, string], string>;
  private readonly insertMany: Database.Transaction<(hits: readonly Hit[]) => number>;
  private readonly commit: Database.Transaction<(accountId: string, jobId: string, changes: readonly Hit[], rows: readonly AppliedRow[]) => void>;
  private readonly removeMatching: Database.Transaction<(accountId: string, jobId: string, rowIndex: number, filter: HitFilter) => AppliedRow>;

  constructor(options: SqliteHitStoreOptions) {
    this.db = openPrivateSqlite(options.filename);
    this.db.pragma('cache_size = -65536');
    // Updates dirty pages all over the table: checkpoint every ~8 MB of WAL rather than every 4 MB, so a
    // page changed by several batches in a row is copied back once. Not more: the checkpoint runs inside
    // the commit that crosses the bound, on the event loop (at 40 MB it took 60-100 ms, one slice too long).
    this.db.pragma('wal_autocheckpoint = 2000');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS hits (
        account_id        TEXT    NOT NULL,
        hit_id            TEXT    NOT NULL,
        visitor_id        TEXT    NOT NULL,
        id_funnel         TEXT    NOT NULL,
        id_funnel_group   TEXT    NOT NULL,
        id_traffic_source TEXT    NOT NULL,
        id_node           TEXT    NOT NULL,
        id_page           TEXT    NOT NULL,
        country_code      TEXT    NOT NULL,
        ip                TEXT    NOT NULL,
        tracking_fields   TEXT    NOT NULL,
        time_ms           INTEGER NOT NULL,
        is_entrance       INTEGER NOT NULL,
        cost              TEXT    NOT NULL,
        conversions       TEXT    NOT NULL,
        custom_events     TEXT    NOT NULL,
        postback_called   INTEGER NOT NULL,
        PRIMARY KEY (account_id, hit_id)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS hits_by_time ON hits (account_id, time_ms);
      CREATE TABLE IF NOT EXISTS applied_job_batches (
        account_id TEXT    NOT NULL,
        job_id     TEXT    NOT NULL,
        first_row  INTEGER NOT NULL,
        rows       TEXT    NOT NULL,
        PRIMARY KEY (account_id, job_id, first_row)
      ) WITHOUT ROWID;`);

    this.insertHit = this.db.prepare(
      `INSERT OR IGNORE INTO hits (${HIT_COLUMNS}) VALUES (${HIT_COLUMNS.split(',')
        .map(() => '?')
        .join(', ')})`,
    );
    this.selectByIds = this.db.prepare(`SELECT ${HIT_COLUMNS} FROM hits WHERE account_id = ? AND hit_id IN (SELECT value FROM json_each(?))`);
    this.updateHit = this.db.prepare('UPDATE hits SET conversions = ?, cost = ?, custom_events = ?, postback_called = ? WHERE account_id = ? AND hit_id = ?');
    this.insertBatch = this.db.prepare('INSERT INTO applied_job_batches (account_id, job_id, first_row, rows) VALUES (?, ?, ?, ?)');
    this.selectBatches = this.db
      .prepare<[string, string], string>('SELECT rows FROM applied_job_batches WHERE account_id = ? AND job_id = ? ORDER BY first_row')
      .pluck();

    this.insertMany = this.db.transaction((hits: readonly Hit[]) => {
      let inserted = 0;
      for (const hit of hits) inserted += this.insertHit.run(...hitValues(hit)).changes;
      return inserted;
    });
    this.commit = this.db.transaction((accountId: string, jobId: string, changes: readonly Hit[], rows: readonly AppliedRow[]) => {
      for (const change of changes)
        this.updateHit.run(
          JSON.stringify(change.conversions),
          change.cost,
          JSON.stringify(change.customEvents),
          change.postbackCalled ? 1 : 0,
          accountId,
          change.hitId,
        );
      this.recordRows(accountId, jobId, rows);
    });
    this.removeMatching = this.db.transaction((accountId: string, jobId: string, rowIndex: number, filter: HitFilter) => {
      const recorded = this.recordedRows(accountId, jobId).find((row) => row.rowIndex === rowIndex);
      if (recorded) return recorded;
      const { where, params } = hitFilterSql(accountId, filter);
      const removed = this.db.prepare(`DELETE FROM hits WHERE ${where}`).run(...params).changes;
      const row: AppliedRow = { rowIndex, outcome: removed > 0 ? 'applied' : 'noop', hits: removed, postbacks: [] };
      this.recordRows(accountId, jobId, [row]);
      return row;
    });
  }

  async insertHits(hits: readonly Hit[]): Promise<InsertHitsResult> {
    // A full disk or read-only volume answers 507/503 (StorageUnavailableError), not a bare 500.
    const inserted = hits.length === 0 ? 0 : writingTo(HIT_WAREHOUSE, () => this.insertMany.immediate(hits));
    return { inserted, ignored: hits.length - inserted };
  }

  async getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    if (hitIds.length === 0) return [];
    return this.selectByIds.all(accountId, JSON.stringify(hitIds)).map(hitFromRow);
  }

  async findEntrances(accountId: string, query: EntranceQuery): Promise<Hit[]> {
    const { where, params } = entranceSql(accountId, query);
    return this.db
      .prepare<unknown[], HitRow>(`SELECT ${HIT_COLUMNS} FROM hits WHERE ${where} ORDER BY hit_id`)
      .all(...params)
      .map(hitFromRow);
  }

  async countHits(accountId: string, filter: HitFilter): Promise<number> {
    const { where, params } = hitFilterSql(accountId, filter);
    return this.db
      .prepare<unknown[], number>(`SELECT COUNT(*) FROM hits WHERE ${where}`)
      .pluck()
      .get(...params)!;
  }

  async appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    return this.recordedRows(accountId, jobId);
  }

  async commitRows(accountId: string, jobId: string, changes: readonly Hit[], rows: readonly AppliedRow[]): Promise<void> {
    writingTo(HIT_WAREHOUSE, () => this.commit.immediate(accountId, jobId, changes, rows));
  }

  async deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow> {
    return writingTo(HIT_WAREHOUSE, () => this.removeMatching.immediate(accountId, jobId, rowIndex, filter));
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private recordedRows(accountId: string, jobId: string): AppliedRow[] {
    return this.selectBatches
      .all(accountId, jobId)
      .flatMap((rows) => JSON.parse(rows) as AppliedRow[])
      .sort((a, b) => a.rowIndex - b.rowIndex);
  }

  /** One record per batch of rows (a job of 1,000 rows writes one), leaving out rows recorded before. */
  private recordRows(accountId: string, jobId: string, rows: readonly AppliedRow[]): void {
    if (rows.length === 0) return;
    const recorded = new Set(this.recordedRows(accountId, jobId).map((row) => row.rowIndex));
    const fresh = rows.filter((row) => !recorded.has(row.rowIndex));
    if (fresh.length === 0) return;
    this.insertBatch.run(accountId, jobId, Math.min(...fresh.map((row) => row.rowIndex)), JSON.stringify(fresh));
  }
}

function hitValues(hit: Hit): unknown[] {
  return [
    hit.accountId,
    hit.hitId,
    hit.visitorId,
    hit.idFunnel,
    hit.idFunnelGroup,
    hit.idTrafficSource,
    hit.idNode,
    hit.idPage,
    hit.countryCode,
    hit.ip,
    JSON.stringify(hit.trackingFields),
    timeMs(hit.time),
    hit.isEntrance ? 1 : 0,
    hit.cost,
    JSON.stringify(hit.conversions),
    JSON.stringify(hit.customEvents),
    hit.postbackCalled ? 1 : 0,
  ];
}

/** `$."slot"`: a JSON path to one tracking field, quoted so any slot name stays a single key. */
function slotPath(slot: string): string {
  return `$.${JSON.stringify(slot)}`;
}

function inList(column: string, values: readonly string[] | undefined, where: string[], params: unknown[]): void {
  if (!values || values.length === 0) return;
  where.push(`${column} IN (SELECT value FROM json_each(?))`);
  params.push(JSON.stringify(values));
}

function entranceSql(accountId: string, query: EntranceQuery): { where: string; params: unknown[] } {
  const where = ['account_id = ?', 'time_ms >= ?', 'time_ms < ?', 'is_entrance = 1'];
  const params: unknown[] = [accountId, timeMs(query.timeStart), timeMs(query.timeEnd)];
  inList('id_funnel', query.funnelIds, where, params);
  inList('id_traffic_source', query.trafficSourceIds, where, params);
  if (query.countryCode) {
    where.push('country_code = ?');
    params.push(query.countryCode);
  }
  for (const condition of query.trackingFields ?? []) {
    where.push(`COALESCE(json_extract(tracking_fields, ?), '') = ?`);
    params.push(slotPath(condition.key), condition.value);
  }
  return { where: where.join(' AND '), params };
}

function hitFilterSql(accountId: string, filter: HitFilter): { where: string; params: unknown[] } {
  const where = ['account_id = ?', 'time_ms >= ?', 'time_ms < ?'];
  const params: unknown[] = [accountId, timeMs(filter.timeStart), timeMs(filter.timeEnd)];
  inList('id_funnel_group', filter.funnelGroupIds, where, params);
  inList('id_funnel', filter.funnelIds, where, params);
  inList('id_traffic_source', filter.trafficSourceIds, where, params);
  inList('country_code', filter.countryCodes, where, params);
  inList('visitor_id', filter.visitorIds, where, params);
  inList('ip', filter.ips, where, params);
  for (const [slot, values] of Object.entries(filter.trackingFields ?? {})) {
    if (values.length === 0) continue;
    where.push(`COALESCE(json_extract(tracking_fields, ?), '') IN (SELECT value FROM json_each(?))`);
    params.push(slotPath(slot), JSON.stringify(values));
  }
  return { where: where.join(' AND '), params };
}
