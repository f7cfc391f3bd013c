// The SQL the store's reads and writes build: the columns a read selects, WHERE clauses (by hit keys, by a filter) and the reads both sides run.
import { listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import { timeMs, type Hit, type HitFilter } from '@funnel/reporting-domain';
import { HIT_READ_COLUMNS, hitFromRow } from '../../hit-row';
import { CUSTOM_EVENT_ENTRIES, hitStateSelects } from '../../hit-state';
import type { AppliedRow } from '../../hit-store';
import { TRACKING_SLOTS, trackingColumn } from '../../warehouse-schema';
import { timeRanges, timeRangesSql } from '../time-ranges';

export const SELECT_HIT = HIT_READ_COLUMNS.map((column) => (column === 'cost' ? 'cost::VARCHAR AS cost' : column)).join(', ');

/** A MAP of the entries (key, column) whose column passes `keep` (a lambda body on `e.v`). */
const mapOf = (entries: readonly [string, string][], keep: string) =>
  `map_from_entries(list_filter([${entries.map(([key, column]) => `{'k': '${key}', 'v': ${column}}`).join(', ')}], lambda e: ${keep}))`;

/** HIT_STATE_COLUMNS, or those of a StateRead (no tracking field: NULL, read as none). */
export const selectHitState = hitStateSelects(({ trackingEntries, fields }) =>
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

/** `$1` account, `$2`..`$3` the keys' time span, `$4` their ids. */
/**
 * The account's hits of `keys` (hit id -> time, from the hit-key index) as a WHERE clause with its
 * parameters: bounded by the spans of their times (see timeRanges), so DuckDB reads only the row
 * groups holding them.
 */
export function byKeys(accountId: string, keys: Map<string, number>): { sql: string; params: DuckDBValue[] } {
  const spans = timeRangesSql('time_ms', timeRanges(keys.values()), 3);
  return {
    sql: `account_id = $1 AND hit_id IN (SELECT unnest($2::VARCHAR[])) AND ${spans.sql}`,
    params: [accountId, listValue([...keys.keys()]), ...spans.params],
  };
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
