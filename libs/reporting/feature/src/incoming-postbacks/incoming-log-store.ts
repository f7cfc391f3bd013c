import type { IncomingPostbackLogRow, IncomingPostbackOutcome, IncomingPostbackSource } from '@funnel/contracts';

/** One postback as the log keeps it: keyed by (accountId, postbackId). */
export interface IncomingLogEntry {
  accountId: string;
  postbackId: string;
  /** When the edge received it (epoch ms, UTC). */
  timeMs: number;
  source: IncomingPostbackSource;
  hitId: string;
  transactionId: string;
  revenue: string;
  payout: string;
  ip: string;
  outcome: IncomingPostbackOutcome;
  reason: string | null;
  jobId: string | null;
  idFunnel: string;
  idTrafficSource: string;
  /** When the outcome was set (epoch ms). */
  updatedMs: number;
}

/** A window query of one account's log (already validated). */
export interface IncomingLogQuery {
  accountId: string;
  /** Inclusive, epoch ms. */
  startMs: number;
  /** Exclusive, epoch ms. */
  endMs: number;
  outcomes?: readonly string[];
  sources?: readonly string[];
  trafficSourceIds?: readonly string[];
  funnelIds?: readonly string[];
  hitIds?: readonly string[];
  start: number;
  length: number;
}

export interface IncomingLogPage {
  rows: IncomingPostbackLogRow[];
  rowsTotal: number;
}

/**
 * The incoming postback log: a read model next to the hits (DuckDB embedded, ClickHouse
 * distributed), one row per postback received.
 *
 * - `received` records postbacks as they are accepted (outcome `queued`, or a final `invalid` /
 *   `unknownHit` when nothing was queued); a row already there is left as it is (its job may have
 *   been applied first).
 * - `resolved` sets the outcome once the postback's job is applied (or failed), writing the whole
 *   row: a row that `received` never wrote (the process died between queueing and logging) appears then.
 */
export interface IncomingLogStore {
  received(entries: readonly IncomingLogEntry[]): Promise<void>;
  resolved(entries: readonly IncomingLogEntry[]): Promise<void>;
  /** One page of the query, newest first, and the window's count; past `timeoutMs` it rejects with PostbackLogQueryTimeout. */
  find(query: IncomingLogQuery, timeoutMs?: number): Promise<IncomingLogPage>;
  close(): Promise<void>;
}

export const INCOMING_LOG_STORE = Symbol.for('funnel.reporting.IncomingLogStore');

/** A stored row as both engines return it (64-bit integers as bigint from DuckDB, as text from ClickHouse). */
export interface StoredIncomingRow {
  time_ms: bigint | number | string;
  postback_id: string;
  source: string;
  hit_id: string;
  transaction_id: string;
  revenue: string;
  payout: string;
  ip: string;
  outcome: string;
  reason: string | null;
  job_id: string | null;
  id_funnel: string;
  id_traffic_source: string;
  updated_ms: bigint | number | string;
}

export const INCOMING_SELECT =
  'time_ms, postback_id, source, hit_id, transaction_id, revenue, payout, ip, outcome, reason, job_id, id_funnel, id_traffic_source, updated_ms';

export function incomingRowOf(row: StoredIncomingRow): IncomingPostbackLogRow {
  return {
    time: new Date(Number(row.time_ms)).toISOString(),
    postbackId: row.postback_id,
    source: row.source as IncomingPostbackSource,
    hitId: row.hit_id,
    transactionId: row.transaction_id,
    revenue: row.revenue,
    payout: row.payout,
    ip: row.ip,
    outcome: row.outcome as IncomingPostbackOutcome,
    reason: row.reason ?? null,
    jobId: row.job_id === '' ? null : (row.job_id ?? null),
    idFunnel: row.id_funnel,
    idTrafficSource: row.id_traffic_source,
    updatedAt: new Date(Number(row.updated_ms)).toISOString(),
  };
}

export type ParamType = 'String' | 'Int64';

/** The WHERE of a window query for both engines (`placeholder(n, type)`: `$n` in DuckDB, `{pn:type}` in ClickHouse). */
export function incomingWhereOf(query: IncomingLogQuery, placeholder: (n: number, type: ParamType) => string): { sql: string; params: Array<string | number> } {
  const params: Array<string | number> = [];
  const bind = (value: string | number, type: ParamType) => {
    params.push(value);
    return placeholder(params.length, type);
  };
  const clauses = [`account_id = ${bind(query.accountId, 'String')}`, `time_ms >= ${bind(query.startMs, 'Int64')}`, `time_ms < ${bind(query.endMs, 'Int64')}`];
  const list = (column: string, values: readonly string[] | undefined) => {
    if (values?.length) clauses.push(`${column} IN (${values.map((v) => bind(v, 'String')).join(', ')})`);
  };
  list('outcome', query.outcomes);
  list('source', query.sources);
  list('id_traffic_source', query.trafficSourceIds);
  list('id_funnel', query.funnelIds);
  list('hit_id', query.hitIds);
  return { sql: clauses.join(' AND '), params };
}
