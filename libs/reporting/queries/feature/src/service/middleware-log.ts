// POST /reporting/logs/middleware: the middleware asset summary of the caller's account in a window.
import {
  MIDDLEWARE_LOG_REASONS,
  type CallerContext,
  type MiddlewareLogCallRow,
  type MiddlewareLogReason,
  type MiddlewareLogReport,
  type MiddlewareLogRequest,
  type MiddlewareLogSummaryRow,
} from '@funnel/contracts';
import type { WarehouseRunner } from '../engines/warehouse';
import { middlewareCallsSql, middlewareSummarySql, type MiddlewareLogQuery } from '../sql/middleware-log-sql';

/** Calls listed per page when `paging.length` is absent. */
export const DEFAULT_MIDDLEWARE_LOG_ROWS = 100;

const reasonOf = (value: unknown): MiddlewareLogReason | null =>
  (MIDDLEWARE_LOG_REASONS as readonly unknown[]).includes(value) ? (value as MiddlewareLogReason) : null;

/**
 * Per middleware config and funnel node: calls, calls whose matched route was followed (by route,
 * `matchedRouteID`), defaults taken by reason, timeouts and the average latency; then one page of the
 * calls, newest first, with `rowsTotal` the calls that pass the filters.
 */
export async function middlewareLog(warehouse: WarehouseRunner, context: CallerContext, request: MiddlewareLogRequest): Promise<MiddlewareLogReport> {
  const query: MiddlewareLogQuery = {
    accountId: context.accountId,
    startMs: Date.parse(request.timeStart),
    endMs: Date.parse(request.timeEnd),
    filters: request,
  };
  const page = { start: request.paging?.start ?? 0, length: request.paging?.length ?? DEFAULT_MIDDLEWARE_LOG_ROWS };
  const [groups, calls] = await Promise.all([
    warehouse.rows(middlewareSummarySql(warehouse.dialect, warehouse.table, query)),
    warehouse.rows(middlewareCallsSql(warehouse.dialect, warehouse.table, query, page)),
  ]);
  const summary = new Map<string, MiddlewareLogSummaryRow & { latencyTotal: number }>();
  let rowsTotal = 0;
  for (const group of groups) {
    const key = `${group.mw_config}/${group.id_funnel}/${group.id_node}`;
    let row = summary.get(key);
    if (row === undefined) {
      row = {
        idMiddlewareConfig: String(group.mw_config),
        idFunnel: String(group.id_funnel),
        idNode: String(group.id_node),
        calls: 0,
        matched: 0,
        routes: [],
        defaults: Object.fromEntries(MIDDLEWARE_LOG_REASONS.map((reason) => [reason, 0])) as Record<MiddlewareLogReason, number>,
        timeouts: 0,
        averageLatencyMs: 0,
        latencyTotal: 0,
      };
      summary.set(key, row);
    }
    const count = Number(group.calls);
    rowsTotal += count;
    row.calls += count;
    row.latencyTotal += Number(group.latency_ms);
    const reason = reasonOf(group.mw_default_reason);
    if (reason === null) {
      row.matched += count;
      const route = String(group.mw_matched_route);
      const known = row.routes.find((candidate) => candidate.matchedRouteID === route);
      if (known) known.calls += count;
      else row.routes.push({ matchedRouteID: route, calls: count });
    } else {
      row.defaults[reason] += count;
      if (reason === 'timeout') row.timeouts += count;
    }
  }
  const rows: MiddlewareLogSummaryRow[] = [...summary.values()]
    .map(({ latencyTotal, ...row }) => ({
      ...row,
      routes: row.routes.sort((a, b) => b.calls - a.calls || a.matchedRouteID.localeCompare(b.matchedRouteID)),
      averageLatencyMs: row.calls === 0 ? 0 : Math.round((latencyTotal / row.calls) * 100) / 100,
    }))
    .sort(
      (a, b) => b.calls - a.calls || `${a.idMiddlewareConfig}/${a.idFunnel}/${a.idNode}`.localeCompare(`${b.idMiddlewareConfig}/${b.idFunnel}/${b.idNode}`),
    );
  const listed: MiddlewareLogCallRow[] = calls.map((call) => {
    const reason = reasonOf(call.mw_default_reason);
    const status = Number(call.mw_status);
    return {
      time: new Date(Number(call.time_ms)).toISOString(),
      hitId: String(call.hit_id),
      visitorId: String(call.visitor_id),
      idMiddlewareConfig: String(call.mw_config),
      idFunnel: String(call.id_funnel),
      idNode: String(call.id_node),
      matchedRouteID: String(call.mw_matched_route),
      defaultTaken: reason !== null,
      defaultReason: reason,
      status: status === 0 ? null : status,
      latencyMs: Number(call.mw_latency_ms),
    };
  });
  return { summary: rows, rows: listed, rowsReturned: listed.length, rowsTotal };
}
