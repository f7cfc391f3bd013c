import type { IncomingPostbackLogRow, IncomingPostbackOutcome, IncomingPostbackSource } from '@funnel/contracts';
import type { LogRecord } from '../warehouse-log/duckdb-append';
import type { LogColumn } from '../warehouse-log/log-table';
import { windowQuery, type Placeholder, type WindowQuery } from '../warehouse-log/log-window';
import type { IncomingLogEntry, IncomingLogQuery } from './incoming-log-store';

/** The log's columns, the same in both engines: each write appends a whole row and its version (0 received, 1 resolved). */
export const INCOMING_LOG_COLUMNS: readonly LogColumn[] = [
  // [name, DuckDB type, ClickHouse type]
  ['account_id', 'VARCHAR NOT NULL', 'String'],
  ['postback_id', 'VARCHAR NOT NULL', 'String'],
  ['time_ms', 'BIGINT NOT NULL', 'Int64'],
  ['source', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['hit_id', 'VARCHAR NOT NULL', 'String'],
  ['transaction_id', 'VARCHAR NOT NULL', 'String'],
  ['revenue', 'VARCHAR NOT NULL', 'String'],
  ['payout', 'VARCHAR NOT NULL', 'String'],
  ['ip', 'VARCHAR NOT NULL', 'String'],
  ['outcome', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['reason', 'VARCHAR', 'Nullable(String)'],
  ['job_id', 'VARCHAR', 'Nullable(String)'],
  ['id_funnel', 'VARCHAR NOT NULL', 'String'],
  ['id_traffic_source', 'VARCHAR NOT NULL', 'String'],
  ['updated_ms', 'BIGINT NOT NULL', 'Int64'],
  ['version', 'UTINYINT NOT NULL', 'UInt8'],
];

/** The stored record of an entry at `version` (0 received, 1 resolved): both engines write these values. */
export function incomingRecordOf(e: IncomingLogEntry, version: number): LogRecord {
  return {
    account_id: e.accountId,
    postback_id: e.postbackId,
    time_ms: e.timeMs,
    source: e.source,
    hit_id: e.hitId,
    transaction_id: e.transactionId,
    revenue: e.revenue,
    payout: e.payout,
    ip: e.ip,
    outcome: e.outcome,
    reason: e.reason,
    job_id: e.jobId,
    id_funnel: e.idFunnel,
    id_traffic_source: e.idTrafficSource,
    updated_ms: e.updatedMs,
    version,
  };
}

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

/**
 * The window query over `from`, newest first: `from` holds each postback's latest version
 * (ClickHouse's `table FINAL`, a subquery in DuckDB).
 */
export function incomingLogSql(from: string, query: IncomingLogQuery, placeholder: Placeholder): WindowQuery {
  return windowQuery(
    query,
    {
      from,
      select: 'time_ms, postback_id, source, hit_id, transaction_id, revenue, payout, ip, outcome, reason, job_id, id_funnel, id_traffic_source, updated_ms',
      orderBy: 'time_ms DESC, postback_id DESC',
      filters: [
        ['outcome', query.outcomes],
        ['source', query.sources],
        ['id_traffic_source', query.trafficSourceIds],
        ['id_funnel', query.funnelIds],
        ['hit_id', query.hitIds],
      ],
    },
    placeholder,
  );
}
