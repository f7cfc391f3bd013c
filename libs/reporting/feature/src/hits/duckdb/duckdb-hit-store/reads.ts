// The store's reads: hits and hit states by id, entrances, counts and the rows applied by jobs, each on a reader connection.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { EntranceQuery, Hit, HitFilter } from '@funnel/reporting-domain';
import { hitStateFromRow } from '../../hit-state';
import type { AppliedRow, HitState, StateRead } from '../../hit-store';
import type { HitKeyIndex } from '../hit-key-index';
import type { RecordedRowIndexes } from '../recorded-row-indexes';
import type { WarehouseConnections } from './connections';
import { SELECT_HIT, Sql, byKeys, hitFilterSql, readHits, recordedRowsOfJobs, selectHitState, trackingSlotColumn } from './sql';

/** The reads of a store, on connections of their own (see WarehouseConnections.reading): they see committed hits only. */
export class HitReads {
  constructor(
    private readonly connections: WarehouseConnections,
    private readonly index: HitKeyIndex,
    private readonly recordedIndexes: RecordedRowIndexes,
  ) {}

  async getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    const keys = this.index.lookup(accountId, hitIds);
    if (keys.size === 0) return [];
    return this.connections.reading((connection) => this.selectByKeys(connection, accountId, keys));
  }

  async getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]> {
    const keys = this.index.lookup(accountId, hitIds);
    if (keys.size === 0) return [];
    const where = byKeys(accountId, keys);
    return this.connections.reading(async (connection) => {
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
    return this.connections.reading(async (connection) => {
      const hits = await readHits(connection, `SELECT ${SELECT_HIT} FROM hits WHERE ${sql.where.join(' AND ')}`, sql.params);
      // In hitId order (ids are ASCII: JS's order is DuckDB's).
      return hits.sort((a, b) => (a.hitId < b.hitId ? -1 : a.hitId > b.hitId ? 1 : 0));
    });
  }

  async countHits(accountId: string, filter: HitFilter): Promise<number> {
    const sql = hitFilterSql(accountId, filter);
    return this.connections.reading(async (connection) => {
      const reader = await connection.runAndReadAll(`SELECT count(*) FROM hits WHERE ${sql.where.join(' AND ')}`, sql.params);
      return Number(reader.getRows()[0][0]);
    });
  }

  async appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    return (await this.appliedRowsOfJobs(accountId, [jobId])).get(jobId) ?? [];
  }

  async appliedRowsOfJobs(accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
    const generation = this.recordedIndexes.generation;
    const found = await this.connections.reading((connection) => recordedRowsOfJobs(connection, accountId, jobIds));
    for (const jobId of jobIds)
      this.recordedIndexes.remember(
        accountId,
        jobId,
        (found.get(jobId) ?? []).map((row) => row.rowIndex),
        generation,
      );
    return found;
  }

  private async selectByKeys(connection: DuckDBConnection, accountId: string, keys: Map<string, number>): Promise<Hit[]> {
    const where = byKeys(accountId, keys);
    return readHits(connection, `SELECT ${SELECT_HIT} FROM hits WHERE ${where.sql}`, where.params);
  }
}
