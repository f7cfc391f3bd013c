import type { IncomingPostbackLogRow } from '@funnel/contracts';
import type { LogWindow } from '../warehouse-log/log-window';

/** One postback as the log keeps it, keyed by (accountId, postbackId): the answered row, with its account and its times in epoch ms (UTC). */
export type IncomingLogEntry = Omit<IncomingPostbackLogRow, 'time' | 'updatedAt'> & { accountId: string; timeMs: number; updatedMs: number };

/** A window query of one account's log (already validated). */
export interface IncomingLogQuery extends LogWindow {
  outcomes?: readonly string[];
  sources?: readonly string[];
  trafficSourceIds?: readonly string[];
  funnelIds?: readonly string[];
  hitIds?: readonly string[];
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
