import type { WebhookAttemptOutcome, WebhookLogRow, WebhookLogSummary, WebhookTrigger } from '@funnel/contracts';

/** One delivery attempt as it is logged. */
export interface WebhookAttempt {
  accountId: string;
  deliveryId: string;
  eventId: string;
  trigger: WebhookTrigger;
  idWebhookConfig: string;
  idNode: string;
  idFunnel: string;
  hitId: string;
  attempt: number;
  outcome: WebhookAttemptOutcome;
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
  /** When the attempt ended (epoch ms, UTC). */
  timeMs: number;
}

/** A window query of one account's attempts (already validated). */
export interface WebhookLogQuery {
  accountId: string;
  /** Inclusive, epoch ms. */
  startMs: number;
  /** Exclusive, epoch ms. */
  endMs: number;
  webhookConfigIds?: readonly string[];
  funnelIds?: readonly string[];
  nodeIds?: readonly string[];
  triggers?: readonly WebhookTrigger[];
  outcomes?: readonly WebhookAttemptOutcome[];
  start: number;
  length: number;
}

export interface WebhookLogPage {
  summary: WebhookLogSummary[];
  rows: WebhookLogRow[];
  rowsTotal: number;
}

/**
 * The webhook delivery log, in the hit warehouse (DuckDB embedded, ClickHouse distributed): one row
 * per attempt, written once (never updated), read by account and window. It is also what keeps a
 * delivery from being sent twice: `settled` tells whether a delivery already has its final attempt
 * (delivered, or given up).
 */
export interface WebhookLogStore {
  attempted(attempt: WebhookAttempt): Promise<void>;
  /** The final outcome of a delivery, when one of its attempts had one (`delivered` or `failed`). */
  settled(accountId: string, deliveryId: string): Promise<'delivered' | 'failed' | undefined>;
  /** The summary per (config, node), the page of attempts and their count. */
  find(query: WebhookLogQuery): Promise<WebhookLogPage>;
  close(): Promise<void>;
}

export const WEBHOOK_LOG_STORE = Symbol.for('funnel.reporting.WebhookLogStore');

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

export const WEBHOOK_LOG_COLUMNS =
  'time_ms, account_id, delivery_id, event_id, trigger, id_webhook_config, id_node, id_funnel, hit_id, attempt, outcome, http_status, latency_ms, error';

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

/** The WHERE of a window query, with placeholders made by `param(index, type)` (1-based). */
export function webhookWhereOf(query: WebhookLogQuery, param: (index: number, type: 'text' | 'int' | 'texts') => string): { sql: string; params: unknown[] } {
  const params: unknown[] = [query.accountId, query.startMs, query.endMs];
  const parts = [`account_id = ${param(1, 'text')}`, `time_ms >= ${param(2, 'int')}`, `time_ms < ${param(3, 'int')}`];
  const list = (column: string, values: readonly string[] | undefined) => {
    if (!values?.length) return;
    params.push([...values]);
    parts.push(`${column} IN ${param(params.length, 'texts')}`);
  };
  list('id_webhook_config', query.webhookConfigIds);
  list('id_funnel', query.funnelIds);
  list('id_node', query.nodeIds);
  list('trigger', query.triggers);
  list('outcome', query.outcomes);
  return { sql: parts.join(' AND '), params };
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

/** Summary rows at most (config, node pairs). */
export const WEBHOOK_SUMMARY_MAX = 1000;
