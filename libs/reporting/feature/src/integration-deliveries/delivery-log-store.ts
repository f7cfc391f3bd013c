import type { IntegrationDeliveryLogRow, IntegrationDeliveryStatus, SyncKind } from '@funnel/contracts';
import type { LogWindow } from '../warehouse-log/log-window';

/** One row as it is logged: the answered row, with its account and its time in epoch ms (UTC). */
export type IntegrationDeliveryEntry = Omit<IntegrationDeliveryLogRow, 'time'> & { accountId: string; timeMs: number };

/** A window query of one account's deliveries (already validated). */
export interface IntegrationDeliveryLogQuery extends LogWindow {
  integrationIds?: readonly string[];
  kinds?: readonly SyncKind[];
  statuses?: readonly IntegrationDeliveryStatus[];
  jobIds?: readonly string[];
}

export interface IntegrationDeliveryLogPage {
  rows: IntegrationDeliveryLogRow[];
  rowsTotal: number;
}

/**
 * The integration deliveries log: a read model next to the hits (DuckDB embedded, ClickHouse
 * distributed), one row per cost row pulled and per conversion sent, appended as each provider call
 * ends (a job's later attempt appends its rows again: the log shows every call).
 */
export interface IntegrationDeliveryLogStore {
  /** Appends the rows (in one write). */
  logged(entries: readonly IntegrationDeliveryEntry[]): Promise<void>;
  /** One page of the query, newest first, and the window's count; past `timeoutMs` it rejects with PostbackLogQueryTimeout. */
  find(query: IntegrationDeliveryLogQuery, timeoutMs?: number): Promise<IntegrationDeliveryLogPage>;
  close(): Promise<void>;
}

export const INTEGRATION_DELIVERY_LOG_STORE = Symbol.for('funnel.reporting.IntegrationDeliveryLogStore');
