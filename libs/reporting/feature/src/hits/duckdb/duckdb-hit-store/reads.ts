// The store's reads: hits and hit states by id, entrances, counts and the rows applied by jobs, each on a reader connection.
import type { EntranceQuery, Hit, HitFilter } from '@funnel/reporting-domain';
import { hitStateFromRow } from '../../hit-state';
import type { AppliedRow, HitState, StateRead } from '../../hit-store';
import type { HitKeyIndex } from '../hit-key-index';
import type { RecordedRowIndexes } from '../recorded-row-indexes';
import type { WarehouseConnections } from './connections';
import { SELECT_HIT, Sql, byPlaces, hitFilterSql, readHits, recordedRowsOfJobs, selectHitState, trackingSlotColumn } from './sql';
import { HIT_SEQ } from './tables';

/** The reads of a store, on connections of their own (see WarehouseConnections.reading): they see committed hits only. */
export class HitReads {
  constructor(
    private readonly connections: WarehouseConnections,
    private readonly index: HitKeyIndex,
    private readonly recordedIndexes: RecordedRowIndexes,
  ) {}

  async getHits(accountId: string, hitIds: readonly string[]): Promise<Hit[]> {
    const places = this.index.locate(accountId, hitIds);
    if (places.size === 0) return [];
    const where = byPlaces(accountId, places.values());
    return this.connections.reading((connection) => readHits(connection, `SELECT ${SELECT_HIT} FROM hits WHERE ${where.sql}`, where.params));
  }

  async getHitStates(accountId: string, hitIds: readonly string[], read?: StateRead): Promise<HitState[]> {
    const cache = this.connections.shared.places;
    const generation = cache.generation;
    const places = this.index.locate(accountId, hitIds);
    if (places.size === 0) return [];
    const where = byPlaces(accountId, places.values());
    const ids = new Map<number, string>();
    for (const [hitId, place] of places) ids.set(place.seq, hitId);
    const states = await this.connections.reading(async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT to_json(h)::VARCHAR FROM (SELECT ${selectHitState(read)} FROM hits WHERE ${where.sql}) AS h`,
        where.params,
      );
      return reader.getRows().map((values) => {
        const row = JSON.parse(String(values[0])) as Record<string, unknown>;
        const hitId = ids.get(Number(row[HIT_SEQ.name]))!;
        row['account_id'] = accountId;
        row['hit_id'] = hitId;
        row['time_ms'] = places.get(hitId)!.timeMs;
        return hitStateFromRow(row);
      });
    });
    // For the update of their new states (see HitUpdates.updateStates): the places of the hits found.
    cache.keep(accountId, new Map(states.map((state) => [state.hitId, places.get(state.hitId)!])), generation);
    return states;
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
}
