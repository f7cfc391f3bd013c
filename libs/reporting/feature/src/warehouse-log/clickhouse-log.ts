import type { ClickHouseClient } from '@clickhouse/client';
import { PostbackLogQueryTimeout } from './log-query-timeout';
import { clickhouseCreateTable, clickhouseTableName, type ClickHouseTableLayout, type LogColumn } from './log-table';
import { clickhouseParams, type RunSql } from './log-window';

/**
 * Creates the log table `<prefix><name>` (prefix `reporting_` by default, as the hit store's; tests
 * use their own) unless it is there, and answers its name.
 */
export async function openClickHouseLogTable(
  client: ClickHouseClient,
  name: string,
  prefix: string | undefined,
  columns: readonly LogColumn[],
  layout: ClickHouseTableLayout,
): Promise<string> {
  const table = clickhouseTableName(name, prefix);
  await client.command({ query: clickhouseCreateTable(table, columns, layout) });
  return table;
}

/** ClickHouse's error code for a query stopped at `max_execution_time`. */
const TIMEOUT_EXCEEDED = '159';

/**
 * `work`'s queries on ClickHouse, each with `params` bound (placed by CLICKHOUSE_PLACEHOLDER). With
 * `timeoutMs`, all of them under the limit: the client aborts its request at the deadline (and the
 * server cancels a read-only query whose client went away), the server stops at
 * `max_execution_time` besides; past it the read rejects with PostbackLogQueryTimeout.
 */
export async function readClickHouse<T>(
  client: ClickHouseClient,
  params: readonly (string | number)[],
  work: (run: RunSql) => Promise<T>,
  timeoutMs?: number,
): Promise<T> {
  const query_params = clickhouseParams(params);
  if (timeoutMs === undefined) return work(async (sql) => (await client.query({ query: sql, query_params, format: 'JSONEachRow' })).json());
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  const clickhouse_settings = { max_execution_time: Math.max(1, Math.ceil(timeoutMs / 1000)), cancel_http_readonly_queries_on_client_close: 1 } as const;
  try {
    return await work(async (sql) =>
      (await client.query({ query: sql, query_params, format: 'JSONEachRow', abort_signal: abort.signal, clickhouse_settings })).json(),
    );
  } catch (error) {
    if (abort.signal.aborted || (error as { code?: string }).code === TIMEOUT_EXCEEDED) throw new PostbackLogQueryTimeout(timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
