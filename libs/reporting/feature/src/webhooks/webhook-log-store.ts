import type { WebhookAttemptOutcome, WebhookLogRow, WebhookLogSummary, WebhookTrigger } from '@funnel/contracts';
import type { LogWindow } from '../warehouse-log/log-window';

/** One delivery attempt as it is logged: the answered row, with its account and its time in epoch ms (UTC). */
export type WebhookAttempt = Omit<WebhookLogRow, 'time'> & { accountId: string; timeMs: number };

/** A window query of one account's attempts (already validated). */
export interface WebhookLogQuery extends LogWindow {
  webhookConfigIds?: readonly string[];
  funnelIds?: readonly string[];
  nodeIds?: readonly string[];
  triggers?: readonly WebhookTrigger[];
  outcomes?: readonly WebhookAttemptOutcome[];
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
  /** The summary per (config, node), the page of attempts and their count; past `timeoutMs` it rejects with PostbackLogQueryTimeout (503 REPORTING.QUERY_TIMEOUT), as the other logs do. */
  find(query: WebhookLogQuery, timeoutMs?: number): Promise<WebhookLogPage>;
  close(): Promise<void>;
}

export const WEBHOOK_LOG_STORE = Symbol.for('funnel.reporting.WebhookLogStore');

/** Summary rows at most (config, node pairs). */
export const WEBHOOK_SUMMARY_MAX = 1000;
