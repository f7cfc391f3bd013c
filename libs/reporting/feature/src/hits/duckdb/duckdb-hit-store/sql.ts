// The SQL the store's reads and writes build: the columns a read selects, WHERE clauses (by hit keys, by a filter) and the reads both sides run.
import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { timeMs, type Hit, type HitFilter } from '@funnel/reporting-domain';
import { HIT_READ_COLUMNS, hitFromRow } from '../../hit-row';
import { CUSTOM_EVENT_ENTRIES, hitStateSelects } from '../../hit-state';
import type { AppliedRow } from '../../hit-store';
import { TRACKING_SLOTS, trackingColumn } from '../../warehouse-schema';
import type { HitPlace } from '../hit-key-index';
import { timeRanges, timeRangesSql } from '../time-ranges';
import { HIT_SEQ } from './tables';

export const SELECT_HIT = HIT_READ_COLUMNS.map((column) => (column === 'cost' ? 'cost::VARCHAR AS cost' : column)).join(', ');

/** A MAP of the entries (key, column) whose column passes `keep` (a lambda body on `e.v`). */
const mapOf = (entries: readonly [string, string][], keep: string) =>
  `map_from_entries(list_filter([${entries.map(([key, column]) => `{'k': '${key}', 'v': ${column}}`).join(', ')}], lambda e: ${keep}))`;

/**
 * HIT_STATE_COLUMNS, or those of a StateRead (no tracking field: NULL, read as none), but for the
 * account, id and time: the hit's sequence number instead (`getHitStates` knows them by it; reading
 * the ids' text costs the scan about a third of its time).
 */
export const selectHitState = hitStateSelects(({ trackingEntries, fields }) =>
  [
    HIT_SEQ.name,
    'id_funnel',
    'id_traffic_source',
    `${trackingEntries.length > 0 ? mapOf(trackingEntries, "e.v <> ''") : 'NULL'} AS tracking_fields`,
    ...(fields.has('cost') ? ['cost::VARCHAR AS cost'] : []),
    ...(fields.has('conversions') ? ['conversions', 'postback_called'] : []),
    ...(fields.has('customEvents') ? [`${mapOf(CUSTOM_EVENT_ENTRIES, 'e.v > 0')} AS custom_events`] : []),
  ].join(', '),
);

/** The recorded rows of each of the account's jobs among `jobIds` that has some, in rowIndex order. */
export async function recordedRowsOfJobs(connection: DuckDBConnection, accountId: string, jobIds: readonly string[]): Promise<Map<string, AppliedRow[]>> {
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
export async function readHits(connection: DuckDBConnection, select: string, params: DuckDBValue[]): Promise<Hit[]> {
  const reader = await connection.runAndReadAll(`SELECT to_json(h)::VARCHAR FROM (${select}) AS h`, params);
  return reader.getRows().map((values) => hitFromRow(JSON.parse(String(values[0])) as Record<string, unknown>));
}

/**
 * The account's hits whose `column` is among the values `$2` holds (`values`: a SELECT of them from
 * `$2`) and whose times are among `times` (from the hit-key index) as a WHERE clause with its
 * parameters: bounded by the spans of their times (see timeRanges), so DuckDB reads only the row
 * groups holding them.
 */
function byColumn(accountId: string, column: string, values: string, param: DuckDBValue, times: Iterable<number>): { sql: string; params: DuckDBValue[] } {
  const spans = timeRangesSql('time_ms', timeRanges(times), 3);
  return { sql: `account_id = $1 AND ${column} IN (${values}) AND ${spans.sql}`, params: [accountId, param, ...spans.params] };
}

/** The account's hits of `keys` (hit id -> time): by their ids (see byColumn). */
export function byKeys(accountId: string, keys: Map<string, number>): { sql: string; params: DuckDBValue[] } {
  return byColumn(accountId, 'hit_id', 'SELECT unnest($2::VARCHAR[])', listValue([...keys.keys()]), keys.values());
}

/**
 * The account's hits at `places` (from the hit-key index): by their sequence numbers (see byColumn),
 * given as one text of numbers (binding a list of 1,000 costs the JS thread and DuckDB's planner more).
 */
export function byPlaces(accountId: string, places: Iterable<HitPlace>): { sql: string; params: DuckDBValue[] } {
  const seqs: number[] = [];
  const times: number[] = [];
  for (const place of places) {
    seqs.push(place.seq);
    times.push(place.timeMs);
  }
  return byColumn(accountId, HIT_SEQ.name, "SELECT unnest(string_split($2, ','))::BIGINT", seqs.join(','), times);
}

/** The column of a tracking-field slot; a slot without one reads as "" (as the domain's rule has a missing field). */
export function trackingSlotColumn(slot: string): string {
  return TRACKING_SLOTS.includes(slot) ? trackingColumn(slot) : "''";
}

/** A WHERE clause scoped to an account and a time window (start inclusive, end exclusive), with positional parameters. */
export class Sql {
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

export function hitFilterSql(accountId: string, filter: HitFilter): Sql {
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
