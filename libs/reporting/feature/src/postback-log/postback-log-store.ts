import type { PostbackLogRow, PostbackStatus } from '@funnel/contracts';
import type { LogWindow } from '../warehouse-log/log-window';

export { POSTBACK_LOG_QUERY_TIMEOUT_MS, PostbackLogQueryTimeout } from '../warehouse-log/log-query-timeout';

/** A postback as it is decided: one row of the log, keyed by (accountId, jobId, rowIndex). */
export interface DecidedPostback {
  accountId: string;
  jobId: string;
  rowIndex: number;
  hitId: string;
  idTrafficSource: string;
  idFunnel: string;
  /** Masked (`maskPostbackUrl`). */
  url: string;
  kind: PostbackLogRow['kind'];
  /** `pending` for a postback URL (to be called), `recorded` for a pixel or javascript (never called). */
  status: Extract<PostbackStatus, 'pending' | 'recorded'>;
  /** When it was decided (epoch ms, UTC). */
  timeMs: number;
}

/** One delivery attempt of a postback: `retrying` leaves it pending, `delivered` and `failed` are final. */
export interface PostbackAttempt {
  accountId: string;
  jobId: string;
  rowIndex: number;
  attempt: number;
  outcome: 'delivered' | 'retrying' | 'failed';
  error: string | null;
  /** When the attempt ended (epoch ms, UTC). */
  atMs: number;
}

/** A window query of one account's log (already validated). */
export interface PostbackLogQuery extends LogWindow {
  trafficSourceIds?: readonly string[];
  funnelIds?: readonly string[];
  statuses?: readonly PostbackStatus[];
}

export interface PostbackLogPage {
  rows: PostbackLogRow[];
  /** Rows matching the query in the window, whatever the page. */
  rowsTotal: number;
}

/**
 * The outgoing postback log: a read model kept next to the hits (DuckDB embedded, ClickHouse
 * distributed), written when a conversion decides a postback and on each delivery attempt, read by
 * (account, time window) with filters, newest first.
 *
 * - `decided` records each postback once: a row already logged under its key (a redelivered job)
 *   is left as it is, time and status included.
 * - `attempted` moves a logged row on as the per-job listing does: a `retrying` attempt leaves it
 *   `pending` with its error, `delivered` and `failed` are final; attempts only grow, an attempt
 *   older than the row's is ignored, and nothing changes a `delivered` row.
 */
export interface PostbackLogStore {
  decided(postbacks: readonly DecidedPostback[]): Promise<void>;
  attempted(attempt: PostbackAttempt): Promise<void>;
  /**
   * One page of the query and the window's count. Past `timeoutMs` (waiting for the connection
   * included) the engine's work is cancelled and it rejects with PostbackLogQueryTimeout.
   */
  find(query: PostbackLogQuery, timeoutMs?: number): Promise<PostbackLogPage>;
  close(): Promise<void>;
}

export const POSTBACK_LOG_STORE = Symbol.for('funnel.reporting.PostbackLogStore');

/** The status an attempt leaves. */
export function statusAfter(outcome: PostbackAttempt['outcome']): PostbackStatus {
  return outcome === 'retrying' ? 'pending' : outcome;
}
