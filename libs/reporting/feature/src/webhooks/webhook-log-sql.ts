import type { WebhookAttemptOutcome, WebhookLogRow, WebhookLogSummary, WebhookTrigger } from '@funnel/contracts';
import type { LogColumn, LogEngine } from '../warehouse-log/log-table';
import { windowQuery, type Placeholder, type RunSql, type WindowQuery } from '../warehouse-log/log-window';
import { WEBHOOK_SUMMARY_MAX, type WebhookLogQuery } from './webhook-log-store';

/** The log's columns: one row per attempt; DuckDB finds a delivery's attempts by one indexed key column. */
export const WEBHOOK_LOG_COLUMNS: readonly LogColumn[] = [
  // [name, DuckDB type, ClickHouse type]
  ['delivery_key', 'VARCHAR NOT NULL', null],
  ['time_ms', 'BIGINT NOT NULL', 'Int64'],
  ['account_id', 'VARCHAR NOT NULL', 'String'],
  ['delivery_id', 'VARCHAR NOT NULL', 'String'],
  ['event_id', 'VARCHAR NOT NULL', 'String'],
  ['trigger', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['id_webhook_config', 'VARCHAR NOT NULL', 'String'],
  ['id_node', 'VARCHAR NOT NULL', 'String'],
  ['id_funnel', 'VARCHAR NOT NULL', 'String'],
  ['hit_id', 'VARCHAR NOT NULL', 'String'],
  ['attempt', 'INTEGER NOT NULL', 'UInt32'],
  ['outcome', 'VARCHAR NOT NULL', 'LowCardinality(String)'],
  ['http_status', 'INTEGER', 'Nullable(UInt16)'],
  ['latency_ms', 'INTEGER NOT NULL', 'UInt32'],
  ['error', 'VARCHAR', 'Nullable(String)'],
];

/** The stored columns of a row, as both engines answer them (numbers as JS numbers). */
export interface StoredWebhookRow {
  time_ms: number | bigint | string;
  delivery_id: string;
  event_id: string;
  trigger: string;
  id_webhook_config: string;
  id_node: string;
  id_funnel: string;
  hit_id: string;
  attempt: number | bigint | string;
  outcome: string;
  http_status: number | bigint | string | null;
  latency_ms: number | bigint | string;
  error: string | null;
}

export function webhookRowOf(row: StoredWebhookRow): WebhookLogRow {
  return {
    time: new Date(Number(row.time_ms)).toISOString(),
    deliveryId: row.delivery_id,
    eventId: row.event_id,
    trigger: row.trigger as WebhookTrigger,
    idWebhookConfig: row.id_webhook_config,
    idNode: row.id_node,
    idFunnel: row.id_funnel,
    hitId: row.hit_id,
    attempt: Number(row.attempt),
    outcome: row.outcome as WebhookAttemptOutcome,
    httpStatus: row.http_status === null ? null : Number(row.http_status),
    latencyMs: Number(row.latency_ms),
    error: row.error,
  };
}

/** One (config, node) group's figures as the engines answer them; `statuses` as [status text, count] pairs. */
export interface StoredSummaryRow {
  id_webhook_config: string;
  id_node: string;
  deliveries: number | bigint | string;
  successes: number | bigint | string;
  failed_deliveries: number | bigint | string;
  attempts: number | bigint | string;
  retries: number | bigint | string;
  average_latency_ms: number | string | null;
  p95_latency_ms: number | bigint | string | null;
}

export function summaryOf(row: StoredSummaryRow, failures: Record<string, number>): WebhookLogSummary {
  return {
    idWebhookConfig: row.id_webhook_config,
    idNode: row.id_node,
    deliveries: Number(row.deliveries),
    successes: Number(row.successes),
    failuresByStatus: failures,
    failedDeliveries: Number(row.failed_deliveries),
    attempts: Number(row.attempts),
    retries: Number(row.retries),
    averageLatencyMs: row.average_latency_ms === null ? 0 : Math.round(Number(row.average_latency_ms) * 10) / 10,
    p95LatencyMs: row.p95_latency_ms === null ? 0 : Number(row.p95_latency_ms),
  };
}

/**
 * The window's attempts in `table`, newest first (their count, rowsTotal, is every attempt of the
 * window, whatever the number of (config, node) pairs the summary stops at), and the summary's and
 * failures' SQL over them in the dialect of each engine: `p95` is nearest-rank (the
 * ceil(0.95 n)-th smallest latency), the same in both.
 */
export function webhookLogSql(
  table: string,
  query: WebhookLogQuery,
  placeholder: Placeholder,
  engine: LogEngine,
): WindowQuery & { summary: string; failures: string } {
  const attempts = windowQuery(
    query,
    {
      from: table,
      select: 'time_ms, delivery_id, event_id, trigger, id_webhook_config, id_node, id_funnel, hit_id, attempt, outcome, http_status, latency_ms, error',
      orderBy: 'time_ms DESC, delivery_id DESC, attempt DESC',
      filters: [
        ['id_webhook_config', query.webhookConfigIds],
        ['id_funnel', query.funnelIds],
        ['id_node', query.nodeIds],
        ['trigger', query.triggers],
        ['outcome', query.outcomes],
      ],
    },
    placeholder,
  );
  const p95 =
    engine === 'duckdb'
      ? 'list_sort(list(latency_ms))[CAST(ceil(0.95 * count(*)) AS BIGINT)]'
      : 'arraySort(groupArray(latency_ms))[toUInt64(ceil(0.95 * count()))]';
  const distinct = engine === 'duckdb' ? 'count(DISTINCT delivery_id)' : 'uniqExact(delivery_id)';
  const statusText = engine === 'duckdb' ? "coalesce(CAST(http_status AS VARCHAR), 'none')" : "ifNull(toString(http_status), 'none')";
  return {
    ...attempts,
    summary: `SELECT id_webhook_config, id_node, ${distinct} AS deliveries,
        sum(CASE WHEN outcome = 'delivered' THEN 1 ELSE 0 END) AS successes,
        sum(CASE WHEN outcome = 'failed' THEN 1 ELSE 0 END) AS failed_deliveries,
        count(*) AS attempts,
        sum(CASE WHEN attempt > 1 THEN 1 ELSE 0 END) AS retries,
        avg(latency_ms) AS average_latency_ms,
        ${p95} AS p95_latency_ms
      FROM ${table} WHERE ${attempts.where}
      GROUP BY id_webhook_config, id_node ORDER BY id_webhook_config, id_node LIMIT ${WEBHOOK_SUMMARY_MAX}`,
    failures: `SELECT id_webhook_config, id_node, ${statusText} AS status, count(*) AS n
      FROM ${table} WHERE (${attempts.where}) AND outcome <> 'delivered'
      GROUP BY id_webhook_config, id_node, status`,
  };
}

/** Failures grouped per (config, node) key `config\nnode`. */
function failuresByKey(rows: { id_webhook_config: string; id_node: string; status: string; n: number | bigint }[]): Map<string, Record<string, number>> {
  const byKey = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const key = `${row.id_webhook_config}\n${row.id_node}`;
    const entry = byKey.get(key) ?? {};
    entry[row.status] = Number(row.n);
    byKey.set(key, entry);
  }
  return byKey;
}

/** The summary per (config, node): its figures and its failures by status. */
export async function readWebhookSummary(run: RunSql, sql: { summary: string; failures: string }): Promise<WebhookLogSummary[]> {
  const summaryRows = await run<StoredSummaryRow>(sql.summary);
  const failures = failuresByKey(await run(sql.failures));
  return summaryRows.map((row) => summaryOf(row, failures.get(`${row.id_webhook_config}\n${row.id_node}`) ?? {}));
}
