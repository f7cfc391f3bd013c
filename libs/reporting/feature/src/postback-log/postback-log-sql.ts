import type { PostbackLogRow } from '@funnel/contracts';
import type { PostbackLogQuery } from './postback-log-store';

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

export type ParamType = 'String' | 'Int64';

/**
 * The WHERE of a window query, the same text for both engines but for its placeholders
 * (`placeholder(n, type)`: `$n` in DuckDB, `{pn:type}` in ClickHouse): the account, the window on
 * `time_ms`, and each filter given as an IN list.
 */
export function whereOf(query: PostbackLogQuery, placeholder: (n: number, type: ParamType) => string): { sql: string; params: Array<string | number> } {
  const params: Array<string | number> = [];
  const bind = (value: string | number, type: ParamType) => {
    params.push(value);
    return placeholder(params.length, type);
  };
  const clauses = [`account_id = ${bind(query.accountId, 'String')}`, `time_ms >= ${bind(query.startMs, 'Int64')}`, `time_ms < ${bind(query.endMs, 'Int64')}`];
  const list = (column: string, values: readonly string[] | undefined) => {
    if (values?.length) clauses.push(`${column} IN (${values.map((v) => bind(v, 'String')).join(', ')})`);
  };
  list('id_traffic_source', query.trafficSourceIds);
  list('id_funnel', query.funnelIds);
  list('status', query.statuses);
  return { sql: clauses.join(' AND '), params };
}
