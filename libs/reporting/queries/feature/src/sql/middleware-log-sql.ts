// The middleware asset summary's SQL (POST /reporting/logs/middleware): middleware node hits carry
// their call (mw_* columns, "" / 0 on other hits), so the log is the account's hits of the window
// with a config id, grouped for the summary and listed newest first for the calls.
import type { MiddlewareLogRequest } from '@funnel/contracts';
import { Params, type Dialect } from './dialect';
import type { BuiltQuery } from './drilldown-sql';

export interface MiddlewareLogQuery {
  accountId: string;
  startMs: number;
  endMs: number;
  filters: Pick<MiddlewareLogRequest, 'middlewareConfigIds' | 'funnelIds' | 'nodeIds' | 'defaultReasons'>;
}

function whereOf(dialect: Dialect, params: Params, live: string | null, query: MiddlewareLogQuery): string {
  const text = (value: string) => params.add(value, 'String');
  const among = (column: string, values: readonly string[] | undefined) =>
    values && values.length > 0 ? `${column} IN (${values.map(text).join(', ')})` : null;
  return [
    `account_id = ${text(query.accountId)}`,
    dialect.timeAtLeast(params.add(query.startMs, 'Int64')),
    dialect.timeBefore(params.add(query.endMs, 'Int64')),
    live,
    `mw_config <> ''`,
    among('mw_config', query.filters.middlewareConfigIds),
    among('id_funnel', query.filters.funnelIds),
    among('id_node', query.filters.nodeIds),
    among('mw_default_reason', query.filters.defaultReasons),
  ]
    .filter(Boolean)
    .join(' AND ');
}

/** Calls and latency sums by config, funnel, node, matched route and default's reason. */
export function middlewareSummarySql(dialect: Dialect, table: string, query: MiddlewareLogQuery): BuiltQuery {
  const params = new Params(dialect);
  const { from, live } = dialect.from(table);
  const sql = `SELECT mw_config, id_funnel, id_node, mw_matched_route, mw_default_reason, count(*) AS calls, sum(mw_latency_ms) AS latency_ms
    FROM ${from} WHERE ${whereOf(dialect, params, live, query)}
    GROUP BY mw_config, id_funnel, id_node, mw_matched_route, mw_default_reason`;
  return { sql, params: params.values };
}

/** One page of the calls, newest first (time, then hit id). */
export function middlewareCallsSql(dialect: Dialect, table: string, query: MiddlewareLogQuery, page: { start: number; length: number }): BuiltQuery {
  const params = new Params(dialect);
  const { from, live } = dialect.from(table);
  const sql = `SELECT time_ms, hit_id, visitor_id, mw_config, id_funnel, id_node, mw_matched_route, mw_default_reason, mw_status, mw_latency_ms
    FROM ${from} WHERE ${whereOf(dialect, params, live, query)}
    ORDER BY time_ms DESC, hit_id DESC LIMIT ${params.add(page.length, 'Int64')} OFFSET ${params.add(page.start, 'Int64')}`;
  return { sql, params: params.values };
}
