import { Params, type Dialect } from './dialect';
import type { BuiltQuery } from './drilldown-sql';
import type { HitKey } from './hits-sql';

/** A page of the hits whose conversions a window's conversion query reads. */
export interface ConvertedHitsQuery {
  accountId: string;
  /** The hits' traffic sources (at least one). */
  trafficSourceIds: readonly string[];
  /** Conversions up to this time (exclusive): their hits came before it. */
  endMs: number;
  /** The page starts after this hit (oldest first). */
  after?: HitKey;
  limit: number;
}

/**
 * The account's live hits of the traffic sources that hold conversions and came before `endMs`,
 * oldest first (time, then hit id), after the cursor, `limit` of them: their key and their
 * `conversions` JSON. A conversion's own time may be any time after its hit's, so hits of any age
 * are read (only those with `conversion_count > 0`).
 */
export function convertedHitsSql(dialect: Dialect, table: string, query: ConvertedHitsQuery): BuiltQuery {
  const params = new Params(dialect);
  const { from, live } = dialect.from(table);
  const where = [
    `account_id = ${params.add(query.accountId, 'String')}`,
    `id_traffic_source IN (${query.trafficSourceIds.map((id) => params.add(id, 'String')).join(', ')})`,
    'conversion_count > 0',
    dialect.timeBefore(params.add(query.endMs, 'Int64')),
    live,
  ];
  if (query.after) {
    const time = params.add(query.after.timeMs, 'Int64');
    where.push(`(time_ms > ${time} OR (time_ms = ${time} AND hit_id > ${params.add(query.after.hitId, 'String')}))`);
  }
  return {
    sql: `SELECT hit_id, time_ms, conversions FROM ${from} WHERE ${where.filter(Boolean).join(' AND ')} ORDER BY time_ms ASC, hit_id ASC LIMIT ${params.add(query.limit, 'Int64')}`,
    params: params.values,
  };
}
