import type { MiddlewareLogReport, MiddlewareLogRequest } from '@funnel/contracts';
import { middlewareLog } from './middleware-log';
import {
  REPORTING_QUERY_LIMITS,
  ReportingQueryErrorCodes,
  ServiceError,
  type AttributeCatalogue,
  type CallerContext,
  type DrilldownReport,
  type DrilldownRequest,
  type ExplorerVisitorReport,
  type RawEventsReport,
  type RawEventsRequest,
  type ReportGrouping,
} from '@funnel/contracts';
import { fromMicros, toMicros, type Hit } from '@funnel/reporting-domain';
import { hitFromRow } from '@funnel/reporting-feature';
import {
  METRICS,
  assembleDrilldown,
  attributeInfo,
  attributesFor,
  nameRequests,
  parseWindow,
  resolveDrilldown,
  resolveFilter,
  type AttributeDefinition,
  type TrackingFieldNames,
} from '@funnel/reporting-queries-domain';
import type { WarehouseRunner } from '../engines/warehouse';
import {
  ROWS_TOTAL_COLUMN,
  drilldownCountSql,
  drilldownPageSql,
  drilldownTotalsSql,
  pageAnswersTotals,
  readsDistinctCounts,
  type TotalsPart,
} from '../sql/drilldown-sql';
import {
  VISITOR_HIT_CONVERSIONS,
  VISITOR_HIT_REVENUE,
  hitByIdSql,
  hitsByKeysSql,
  type HitKey,
  rawEventKeysSql,
  visitorHitsSql,
  visitorSummarySql,
} from '../sql/hits-sql';
import type { AssetNames } from './asset-names';

/** Finds hits by id without scanning (the hit store's getHits), when the store has an id index. */
export type HitsById = (accountId: string, hitIds: string[]) => Promise<Hit[]>;

/** The store's visitor index (HitStore.visitorDays): the UTC days in [startMs, endMs) on which a visitor may have hits. */
export type VisitorDays = (accountId: string, visitorId: string, startMs: number, endMs: number) => Promise<number[]>;

const DAY_MS = 86_400_000;

/** The parts of [startMs, endMs) on the given UTC days, consecutive days joined: where a visitor's hits can be. */
export function visitorRanges(days: readonly number[], startMs: number, endMs: number): { startMs: number; endMs: number }[] {
  const ranges: { startMs: number; endMs: number }[] = [];
  for (const day of days) {
    const from = Math.max(startMs, day * DAY_MS);
    const to = Math.min(endMs, (day + 1) * DAY_MS);
    if (from >= to) continue;
    const last = ranges[ranges.length - 1];
    if (last && last.endMs === from) last.endMs = to;
    else ranges.push({ startMs: from, endMs: to });
  }
  return ranges;
}

/** Explorer by hit id: the visitor's hits this long before and after the hit. */
export const EXPLORER_AROUND_HIT_MS = 7 * 86_400_000;

/** The one traffic source a request is limited to (a whitelist or pinned value of one source id), if any. */
function singleTrafficSource(
  groupings: readonly ReportGrouping[] | undefined,
  pins: readonly { groupBy: string; whitelistFilters: (string | null)[] }[] = [],
): string | undefined {
  const named = (name: unknown) => typeof name === 'string' && ['trafficsource', 'third parties: traffic source'].includes(name.trim().toLowerCase());
  const pinned = pins.find((pin) => named(pin?.groupBy) && pin.whitelistFilters?.length === 1 && typeof pin.whitelistFilters[0] === 'string');
  if (pinned) return pinned.whitelistFilters[0] as string;
  const filtered = (groupings ?? []).find((grouping) => named(grouping?.groupBy) && grouping.whitelistFilters?.length === 1);
  return filtered?.whitelistFilters?.[0];
}

/** Money text in the project's canonical form ("" / null as 0). */
const money = (value: unknown) => fromMicros(toMicros(value === null || value === undefined || value === '' ? '0' : String(value)));

/** The base aggregates of an engine row, money read from its exact text columns. */
function baseRow(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith('b_')) out[column.slice(2)] = value as string | number | null;
  }
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith('m_')) out[column.slice(2)] = value as string;
  }
  return out;
}

/** The totals' base aggregates a page row holds (pageAnswersTotals): `t_<key>`, money from `tm_<key>`. */
function totalsRow(row: Record<string, unknown>): Record<string, string | number | null> {
  const out: Record<string, string | number | null> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith('t_')) out[column.slice(2)] = value as string | number | null;
  }
  for (const [column, value] of Object.entries(row)) {
    if (column.startsWith('tm_')) out[column.slice(3)] = value as string;
  }
  return out;
}

/** A visitor's summary (as visitorSummarySql answers it) from all of its hits' rows, oldest first. */
function summaryOf(rows: readonly Record<string, unknown>[]): Record<string, unknown> {
  const total = (column: string) => fromMicros(rows.reduce((sum, row) => sum + toMicros(String(row[column] ?? '0')), 0n));
  return {
    hits: rows.length,
    conversions: rows.reduce((sum, row) => sum + Number(row[VISITOR_HIT_CONVERSIONS] ?? 0), 0),
    revenue: total(VISITOR_HIT_REVENUE),
    cost: total('cost'),
    first_ms: rows[0]?.time_ms,
    last_ms: rows[rows.length - 1]?.time_ms,
  };
}

function cursorOf(key: HitKey): string {
  return Buffer.from(JSON.stringify([key.timeMs, key.hitId])).toString('base64url');
}

function parseCursor(cursor: unknown): { timeMs: number; hitId: string } | undefined {
  if (cursor === undefined || cursor === null || cursor === '') return undefined;
  try {
    const [timeMs, hitId] = JSON.parse(Buffer.from(String(cursor), 'base64url').toString('utf8'));
    if (Number.isSafeInteger(timeMs) && typeof hitId === 'string') return { timeMs, hitId };
  } catch {
    // Falls through to the 400.
  }
  throw ServiceError.invalidField('cursor', 'isCursor', "cursor must be a previous page's nextCursor");
}

/** The reporting queries over the hit warehouse, every one scoped to the caller's account. */
export class ReportQueries {
  constructor(
    private readonly warehouse: WarehouseRunner,
    private readonly assets: AssetNames,
    private readonly hitsById?: HitsById,
    private readonly visitorDays?: VisitorDays,
  ) {}

  private async catalogueFor(context: CallerContext, idTrafficSource: string | undefined): Promise<AttributeDefinition[]> {
    let names: TrackingFieldNames | undefined;
    if (idTrafficSource) names = await this.assets.trackingFieldNames(context, idTrafficSource);
    return attributesFor(names);
  }

  /** Every attribute (tracking fields named by `idTrafficSource`'s slots when given) and every metric. */
  async attributes(context: CallerContext, idTrafficSource?: string): Promise<AttributeCatalogue> {
    const attributes = await this.catalogueFor(context, idTrafficSource);
    return {
      attributes: attributes.map(attributeInfo),
      metrics: METRICS.map(({ key, label, type, formula }) => ({ key, label, type, formula })),
    };
  }

  async drilldown(context: CallerContext, request: DrilldownRequest): Promise<DrilldownReport> {
    const attributes = await this.catalogueFor(context, singleTrafficSource(request?.groupings, request?.topLevelFilters));
    const resolved = resolveDrilldown(request, attributes);
    const { dialect, table } = this.warehouse;
    const accountId = context.accountId;
    const totalsQuery = (part: TotalsPart) =>
      this.warehouse.rows(drilldownTotalsSql(dialect, table, accountId, resolved, part)).then(([row]) => baseRow(row ?? {}));
    // The page answers the totals of the sums (one scan); the distinct counts' totals (or, grouped by
    // visitor tags, every total) are asked beside it.
    const inPage = pageAnswersTotals(resolved);
    const beside = !inPage ? totalsQuery('all') : readsDistinctCounts(resolved) ? totalsQuery('distinct') : undefined;
    const [rows, besideTotals] = await Promise.all([this.warehouse.rows(drilldownPageSql(dialect, table, accountId, resolved)), beside]);
    let rowsTotal = rows.length ? Number(rows[0][ROWS_TOTAL_COLUMN]) : 0;
    let sums = inPage && rows.length ? totalsRow(rows[0]) : {};
    // An empty page: past the last group (the count asked on its own), or no group passed the metric
    // filters; then the page holds no totals, and those of the sums (over every group) are asked.
    if (!rows.length && (resolved.paging.start > 0 || resolved.metricFilters.length)) {
      const [[count], asked] = await Promise.all([
        resolved.paging.start > 0 ? this.warehouse.rows(drilldownCountSql(dialect, table, accountId, resolved)) : [undefined],
        inPage ? totalsQuery('sums') : {},
      ]);
      rowsTotal = Number(count?.[ROWS_TOTAL_COLUMN] ?? 0);
      sums = asked;
    }
    const totals = { ...sums, ...besideTotals };
    const engineRows = rows.map((row) => ({ ...row, ...baseRow(row) }));
    const names = await this.assets.names(context, nameRequests(resolved, engineRows));
    return assembleDrilldown({ resolved, rows: engineRows, totals, rowsTotal, names });
  }

  /** POST /reporting/logs/middleware: the middleware asset summary of the window (see middlewareLog). */
  middlewareLog(context: CallerContext, request: MiddlewareLogRequest): Promise<MiddlewareLogReport> {
    return middlewareLog(this.warehouse, context, request);
  }

  /** Hits in the window that pass the filters, newest first; `nextCursor` continues after the page's last hit. */
  async rawEvents(context: CallerContext, request: RawEventsRequest): Promise<RawEventsReport<Hit>> {
    const window = parseWindow(request ?? {});
    const filters = request.filters ?? [];
    if (!Array.isArray(filters) || filters.length > REPORTING_QUERY_LIMITS.maxGroupings * 4)
      throw ServiceError.invalidField('filters', 'isArray', 'filters must be an array of attribute filters');
    const attributes = await this.catalogueFor(context, singleTrafficSource(filters));
    const resolved = filters.map((filter, i) => resolveFilter(filter, `filters.${i}`, attributes));
    const limit = request.limit ?? REPORTING_QUERY_LIMITS.defaultRawEvents;
    if (!Number.isInteger(limit) || limit < 1 || limit > REPORTING_QUERY_LIMITS.maxRawEvents)
      throw ServiceError.invalidField('limit', 'isInt', `limit must be an integer from 1 to ${REPORTING_QUERY_LIMITS.maxRawEvents}`);
    const before = parseCursor(request.cursor);
    const { dialect, table } = this.warehouse;
    // The page's keys first (a narrow scan), then its hits' columns (only the row groups holding them).
    const keys = (
      await this.warehouse.rows(
        rawEventKeysSql(dialect, table, {
          accountId: context.accountId,
          startMs: window.startMs,
          endMs: window.endMs,
          filters: resolved,
          before,
          limit: limit + 1,
        }),
      )
    ).map((row) => ({ timeMs: Number(row.time_ms), hitId: String(row.hit_id) }));
    const page = keys.slice(0, limit);
    const rows = page.length ? await this.warehouse.rows(hitsByKeysSql(dialect, table, context.accountId, page)) : [];
    const hits = rows.map(hitFromRow);
    return { hits, nextCursor: keys.length > limit ? cursorOf(page[page.length - 1]) : null };
  }

  /** The hit with that id in the caller's account, or 404 REPORTING.HIT_NOT_FOUND. */
  async explorerHit(context: CallerContext, hitId: unknown): Promise<Hit> {
    if (typeof hitId !== 'string' || hitId === '' || hitId.length > 256) throw ServiceError.invalidField('hitId', 'isString', 'hitId must be a hit id');
    const hit = await this.findHit(context.accountId, hitId);
    if (!hit) throw ServiceError.notFound(ReportingQueryErrorCodes.HIT_NOT_FOUND, `no hit ${hitId} in this account`);
    return hit;
  }

  private async findHit(accountId: string, hitId: string): Promise<Hit | undefined> {
    if (this.hitsById) return (await this.hitsById(accountId, [hitId]))[0];
    const [row] = await this.warehouse.rows(hitByIdSql(this.warehouse.dialect, this.warehouse.table, accountId, hitId));
    return row ? hitFromRow(row) : undefined;
  }

  /**
   * A visitor's hits in order with a summary: by `{ visitorId, timeStart, timeEnd }`, or by `{ hitId }`
   * (the hit's visitor, from 7 days before the hit to 7 days after it).
   */
  async explorerVisitor(context: CallerContext, request: Record<string, unknown>): Promise<ExplorerVisitorReport<Hit>> {
    let visitorId: string;
    let startMs: number;
    let endMs: number;
    if (request && typeof request.hitId === 'string') {
      const hit = await this.explorerHit(context, request.hitId);
      visitorId = hit.visitorId;
      startMs = Math.max(0, Date.parse(hit.time) - EXPLORER_AROUND_HIT_MS);
      endMs = Date.parse(hit.time) + EXPLORER_AROUND_HIT_MS;
    } else {
      if (typeof request?.visitorId !== 'string' || request.visitorId === '' || request.visitorId.length > 256)
        throw ServiceError.invalidField('visitorId', 'isString', 'visitorId (with timeStart and timeEnd) or hitId is required');
      visitorId = request.visitorId;
      ({ startMs, endMs } = parseWindow(request));
    }
    const { dialect, table } = this.warehouse;
    const query = { accountId: context.accountId, visitorId, startMs, endMs };
    const max = REPORTING_QUERY_LIMITS.maxVisitorHits;
    // With the store's visitor index, only the days the visitor was seen are read (each range prunes to its
    // row groups); without it, the window's visitor column is scanned.
    const ranges = this.visitorDays
      ? visitorRanges(await this.visitorDays(context.accountId, visitorId, startMs, endMs), startMs, endMs)
      : [{ startMs, endMs }];
    const rows: Awaited<ReturnType<WarehouseRunner['rows']>> = [];
    for (const range of ranges) {
      if (rows.length > max) break;
      rows.push(...(await this.warehouse.rows(visitorHitsSql(dialect, table, { ...query, ...range, limit: max + 1 - rows.length }))));
    }
    // The summary from the hits when they are all here (one scan), else asked over the whole window.
    const summary = rows.length > max ? (await this.warehouse.rows(visitorSummarySql(dialect, table, query)))[0] : summaryOf(rows);
    const hits = rows.slice(0, max).map(hitFromRow);
    const entrance = hits.find((hit) => hit.isEntrance) ?? hits[0];
    const count = Number(summary?.hits ?? 0);
    if (count === 0) throw ServiceError.notFound(ReportingQueryErrorCodes.VISITOR_NOT_FOUND, `no hit of visitor ${visitorId} in this account in the window`);
    return {
      visitor: {
        visitorId,
        firstSeen: new Date(Number(summary.first_ms)).toISOString(),
        lastSeen: new Date(Number(summary.last_ms)).toISOString(),
        entranceHitId: hits.find((hit) => hit.isEntrance)?.hitId ?? null,
        idTrafficSource: entrance?.idTrafficSource ?? '',
        idFunnel: entrance?.idFunnel ?? '',
        countryCode: entrance?.countryCode ?? '',
        ip: entrance?.ip ?? '',
        trackingFields: entrance?.trackingFields ?? {},
        visitor: entrance?.visitor ?? {},
        visitorTags: hits.length ? hits[hits.length - 1].visitorTags : [],
        hits: count,
        conversions: Number(summary?.conversions ?? 0),
        revenue: money(summary?.revenue),
        cost: money(summary?.cost),
      },
      hits,
      hasMore: rows.length > max,
    };
  }
}
