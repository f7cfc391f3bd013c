import type { IntegrationDeliveryLogRow, IntegrationDeliveryStatus, SyncKind } from '@funnel/contracts';
import type { LogRecord } from '../warehouse-log/duckdb-append';
import type { LogColumn } from '../warehouse-log/log-table';
import { windowQuery, type Placeholder, type WindowQuery } from '../warehouse-log/log-window';
import type { IntegrationDeliveryEntry, IntegrationDeliveryLogQuery } from './delivery-log-store';

/** The log's columns, the same in both engines: one row per cost row or conversion, appended once per call. */
export const DELIVERY_LOG_COLUMNS: readonly LogColumn[] = [
  // [name, DuckDB type, ClickHouse type]
  ['time_ms', 'BIGINT NOT NULL', 'Int64'],
  ['account_id', 'VARCHAR NOT NULL', 'String'],
  ['id_integration', 'VARCHAR NOT NULL', 'String'],
  ['provider', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['job_id', 'VARCHAR NOT NULL', 'String'],
  ['attempt', 'INTEGER NOT NULL', 'UInt32'],
  // The row's place in its write: pages of rows logged at the same millisecond never overlap.
  ['seq', 'INTEGER NOT NULL', 'UInt32'],
  ['kind', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['ad_account_id', 'VARCHAR NOT NULL', 'String'],
  ['goal_id', 'VARCHAR NOT NULL', 'String'],
  ['reporting_job_id', 'VARCHAR NOT NULL', 'String'],
  // A cost row ("" for a conversion).
  ['campaign_id', 'VARCHAR NOT NULL', 'String'],
  ['day', 'VARCHAR NOT NULL', 'String'],
  ['spend', 'VARCHAR NOT NULL', 'String'],
  ['currency', 'VARCHAR NOT NULL', 'String'],
  // A conversion ("" for a cost row).
  ['event_id', 'VARCHAR NOT NULL', 'String'],
  ['hit_id', 'VARCHAR NOT NULL', 'String'],
  ['transaction_id', 'VARCHAR NOT NULL', 'String'],
  ['value', 'VARCHAR NOT NULL', 'String'],
  ['status', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['answer', 'VARCHAR', 'Nullable(String)'],
];

/** The stored record of an entry (both engines write these values), `seq` its place in the write. */
export function deliveryRecordOf(e: IntegrationDeliveryEntry, seq: number): LogRecord {
  return {
    time_ms: e.timeMs,
    account_id: e.accountId,
    id_integration: e.idIntegration,
    provider: e.provider,
    job_id: e.jobId,
    attempt: e.attempt,
    seq,
    kind: e.kind,
    ad_account_id: e.adAccountId,
    goal_id: e.goalId,
    reporting_job_id: e.reportingJobId,
    campaign_id: e.cost?.campaignId ?? '',
    day: e.cost?.day ?? '',
    spend: e.cost?.spend ?? '',
    currency: e.cost?.currency ?? '',
    event_id: e.conversion?.eventId ?? '',
    hit_id: e.conversion?.hitId ?? '',
    transaction_id: e.conversion?.transactionId ?? '',
    value: e.conversion?.value ?? '',
    status: e.status,
    answer: e.answer === '' ? null : e.answer,
  };
}

/** A stored row as both engines return it (64-bit integers as bigint from DuckDB, as text from ClickHouse). */
export interface StoredDeliveryRow {
  time_ms: bigint | number | string;
  id_integration: string;
  provider: string;
  job_id: string;
  attempt: number | bigint | string;
  kind: string;
  ad_account_id: string;
  goal_id: string;
  reporting_job_id: string;
  campaign_id: string;
  day: string;
  spend: string;
  currency: string;
  event_id: string;
  hit_id: string;
  transaction_id: string;
  value: string;
  status: string;
  answer: string | null;
}

export function deliveryRowOf(row: StoredDeliveryRow): IntegrationDeliveryLogRow {
  return {
    time: new Date(Number(row.time_ms)).toISOString(),
    idIntegration: row.id_integration,
    provider: row.provider,
    jobId: row.job_id,
    attempt: Number(row.attempt),
    kind: row.kind as SyncKind,
    adAccountId: row.ad_account_id,
    goalId: row.goal_id,
    reportingJobId: row.reporting_job_id,
    cost: row.campaign_id !== '' || row.day !== '' ? { campaignId: row.campaign_id, day: row.day, spend: row.spend, currency: row.currency } : null,
    conversion: row.event_id !== '' ? { eventId: row.event_id, hitId: row.hit_id, transactionId: row.transaction_id, value: row.value } : null,
    status: row.status as IntegrationDeliveryStatus,
    answer: row.answer ?? null,
  };
}

/** The window query over `table`, newest first. */
export function deliveryLogSql(table: string, query: IntegrationDeliveryLogQuery, placeholder: Placeholder): WindowQuery {
  return windowQuery(
    query,
    {
      from: table,
      select:
        'time_ms, id_integration, provider, job_id, attempt, kind, ad_account_id, goal_id, reporting_job_id, campaign_id, day, spend, currency, event_id, hit_id, transaction_id, value, status, answer',
      orderBy: 'time_ms DESC, job_id DESC, attempt DESC, seq DESC',
      filters: [
        ['id_integration', query.integrationIds],
        ['kind', query.kinds],
        ['status', query.statuses],
        ['job_id', query.jobIds],
      ],
    },
    placeholder,
  );
}
