import type { PostbackLogRow } from '@funnel/contracts';
import type { LogColumn } from '../warehouse-log/log-table';
import { windowQuery, type Placeholder, type WindowQuery } from '../warehouse-log/log-window';
import type { PostbackLogQuery } from './postback-log-store';

/** The log's columns: DuckDB keys a row by one column, ClickHouse versions it. */
export const POSTBACK_LOG_COLUMNS: readonly LogColumn[] = [
  // [name, DuckDB type, ClickHouse type]
  ['delivery_key', 'VARCHAR PRIMARY KEY', null],
  ['account_id', 'VARCHAR NOT NULL', 'String'],
  ['job_id', 'VARCHAR NOT NULL', 'String'],
  ['row_index', 'INTEGER NOT NULL', 'UInt32'],
  ['time_ms', 'BIGINT NOT NULL', 'Int64'],
  ['hit_id', 'VARCHAR NOT NULL', 'String'],
  ['id_traffic_source', 'VARCHAR NOT NULL', 'String'],
  ['id_funnel', 'VARCHAR NOT NULL', 'String'],
  ['url', 'VARCHAR NOT NULL', 'String'],
  ['kind', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['status', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['attempts', 'INTEGER NOT NULL', 'UInt32'],
  ['last_error', 'VARCHAR', 'Nullable(String)'],
  ['updated_ms', 'BIGINT NOT NULL', 'Int64'],
  ['version', null, 'UInt64'],
];

/** A log row as both engines return it (64-bit integers as bigint from DuckDB, as text from ClickHouse's JSON). */
export interface StoredLogRow {
  time_ms: bigint | number | string;
  job_id: string;
  row_index: bigint | number | string;
  hit_id: string;
  id_traffic_source: string;
  id_funnel: string;
  url: string;
  kind: string;
  status: string;
  attempts: bigint | number | string;
  last_error: string | null;
  updated_ms: bigint | number | string;
}

export function logRowOf(row: StoredLogRow): PostbackLogRow {
  return {
    time: new Date(Number(row.time_ms)).toISOString(),
    jobId: row.job_id,
    rowIndex: Number(row.row_index),
    hitId: row.hit_id,
    idTrafficSource: row.id_traffic_source,
    idFunnel: row.id_funnel,
    url: row.url,
    kind: row.kind as PostbackLogRow['kind'],
    status: row.status as PostbackLogRow['status'],
    attempts: Number(row.attempts),
    lastError: row.last_error,
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
  };
}

/** The window query of the log in `from` (the table, or ClickHouse's `table FINAL`), newest first. */
export function postbackLogSql(from: string, query: PostbackLogQuery, placeholder: Placeholder): WindowQuery {
  return windowQuery(
    query,
    {
      from,
      select: 'time_ms, job_id, row_index, hit_id, id_traffic_source, id_funnel, url, kind, status, attempts, last_error, updated_ms',
      orderBy: 'time_ms DESC, job_id DESC, row_index DESC',
      filters: [
        ['id_traffic_source', query.trafficSourceIds],
        ['id_funnel', query.funnelIds],
        ['status', query.statuses],
      ],
    },
    placeholder,
  );
}
