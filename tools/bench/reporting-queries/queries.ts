// The six measured queries: each as the HTTP request a client sends (the contract of
// libs/contracts/src/reporting/queries.ts) and as the very SQL the reporting service runs for it
// (its builders in @funnel/reporting-queries-feature, from the request resolved as the service
// resolves it), which the bench runs on the engine alone.
import type { DrilldownRequest, ExplorerVisitorRequest, RawEventsRequest, ReportGrouping } from '@funnel/contracts';
import { attributesFor, resolveDrilldown, resolveFilter } from '@funnel/reporting-queries-domain';
import {
  DUCKDB_DIALECT,
  drilldownPageSql,
  drilldownTotalsSql,
  ROWS_TOTAL_COLUMN,
  hitsByKeysSql,
  rawEventKeysSql,
  visitorHitsSql,
  type BuiltQuery,
} from '@funnel/reporting-queries-feature';
import { DAY_MS, type Dataset } from './dataset';
import type { DatasetShape } from './hits-sql';

/** The table the DuckDB warehouse keeps hits in. */
const TABLE = 'hits';

export interface BenchQuery {
  name: string;
  /** POST path under /v1 and its body; `iteration` lets a query vary per request (another visitor). */
  http(iteration: number): { path: string; body: DrilldownRequest | RawEventsRequest | ExplorerVisitorRequest };
  /**
   * The service's statements for the same request, run in the service's order (`rows` runs one on
   * the engine; statements the service runs at once are started at once); answers the answer's
   * size: rowsTotal of a drilldown, the hits of a page.
   */
  engine(iteration: number, rows: Rows): Promise<number>;
  /** What the answer's size counts (both sides' sizes are printed side by side). */
  expect: 'rowsTotal' | 'hits';
}

/** Runs one statement on the engine and answers its rows. */
export type Rows = (query: BuiltQuery) => Promise<Record<string, unknown>[]>;

const TS = 'Third Parties: Traffic Source';
const FUNNEL = 'Element: Funnel';
const COUNTRY = 'Location: Country';
/** What a buyer's report usually shows (no distinct counts). */
export const BUYER_METRICS = [
  'Entrances',
  'Lander Views',
  'Lander Clicks',
  'Offer Views',
  'Offer Clicks',
  'Conv.',
  'Revenue',
  'Cost',
  'P/L',
  'ROI',
  'Lander CTR',
  'CVRe',
  'EPe',
];

/** The service's page and totals statements of a drilldown, at once (the catalogue without per-source tracking-field labels: they name columns, not SQL). */
async function drilldownOnEngine(accountId: string, request: DrilldownRequest, rows: Rows): Promise<number> {
  const resolved = resolveDrilldown(request, attributesFor());
  const [page] = await Promise.all([
    rows(drilldownPageSql(DUCKDB_DIALECT, TABLE, accountId, resolved)),
    rows(drilldownTotalsSql(DUCKDB_DIALECT, TABLE, accountId, resolved)),
  ]);
  return page.length ? Number(page[0][ROWS_TOTAL_COLUMN]) : 0;
}

/** The reports' window: the data set's last 23 of 30 days (7.7 of 10M hits), as the reference figures select. */
export function reportWindow(shape: DatasetShape): [number, number] {
  const end = shape.startMs + shape.days * DAY_MS;
  return [end - 23 * DAY_MS, end];
}

/** The six queries over a data set. */
export function benchQueries(dataset: Dataset, visitorIds: string[]): BenchQuery[] {
  const { accountId, assets, shape } = dataset;
  const window = reportWindow(shape);
  const end = shape.startMs + shape.days * DAY_MS;
  const times = { timeStart: new Date(window[0]).toISOString(), timeEnd: new Date(window[1]).toISOString() };
  // The busiest source (the generator skews towards the first) and its first funnel.
  const source = assets.trafficSources[0];
  const funnel = assets.funnels[0].idFunnel;
  const page = { start: 0, length: 50 };
  const drilldown = (body: Omit<DrilldownRequest, 'timeStart' | 'timeEnd' | 'paging'>): DrilldownRequest => ({
    ...times,
    timeZone: 'UTC',
    paging: page,
    ...body,
  });
  const asDrilldown = (request: DrilldownRequest) => ({
    http: () => ({ path: '/reporting/drilldown', body: request }),
    engine: (_: number, rows: Rows) => drilldownOnEngine(accountId, request, rows),
  });
  const sourceFilter: ReportGrouping[] = [{ groupBy: TS, whitelistFilters: [source] }];
  const visitorOf = (n: number) => visitorIds[n % visitorIds.length];
  return [
    {
      name: '1-level drilldown (traffic source, every metric incl. the Unique ones)',
      expect: 'rowsTotal',
      ...asDrilldown(drilldown({ groupings: [{ groupBy: TS }] })),
    },
    {
      name: '2-level drilldown (traffic source x country, 13 metrics)',
      expect: 'rowsTotal',
      ...asDrilldown(drilldown({ groupings: [{ groupBy: TS }, { groupBy: COUNTRY }], metrics: BUYER_METRICS })),
    },
    {
      name: '3-level tree expansion (source > funnel > country, the third level under one source and funnel)',
      expect: 'rowsTotal',
      ...asDrilldown(
        drilldown({
          groupings: [{ groupBy: TS }, { groupBy: FUNNEL }, { groupBy: COUNTRY }],
          topLevelFilters: [
            { groupBy: TS, whitelistFilters: [source] },
            { groupBy: FUNNEL, whitelistFilters: [funnel] },
          ],
          options: { viewType: 'tree' },
          metrics: BUYER_METRICS,
        }),
      ),
    },
    {
      name: "tracking-field drilldown (one source's c1 values)",
      expect: 'rowsTotal',
      ...asDrilldown(drilldown({ groupings: [...sourceFilter, { groupBy: 'c1' }], metrics: BUYER_METRICS })),
    },
    {
      name: 'raw-events page (newest 100 hits of one source, every field)',
      expect: 'hits',
      http: () => ({ path: '/reporting/rawevents', body: { ...times, filters: sourceFilter, limit: 100 } }),
      engine: async (_, rows) => {
        // The page's keys (a narrow top-N), then the page's hits by those keys, as the service reads a page.
        const keys = await rows(
          rawEventKeysSql(DUCKDB_DIALECT, TABLE, {
            accountId,
            startMs: window[0],
            endMs: window[1],
            filters: sourceFilter.map((filter, i) => resolveFilter(filter, `filters.${i}`, attributesFor())),
            limit: 101,
          }),
        );
        const page = keys.slice(0, 100).map((row) => ({ timeMs: Number(row.time_ms), hitId: String(row.hit_id) }));
        return page.length ? (await rows(hitsByKeysSql(DUCKDB_DIALECT, TABLE, accountId, page))).length : 0;
      },
    },
    {
      name: "visitor lookup (a visitor's hits over the 30 days; another visitor each time)",
      expect: 'hits',
      http: (n) => ({
        path: '/reporting/explorer/visitor',
        body: { visitorId: visitorOf(n), timeStart: new Date(shape.startMs).toISOString(), timeEnd: new Date(end).toISOString() },
      }),
      // The visitor's hits (its summary is made from them when they are all there, as here).
      engine: async (n, rows) =>
        Math.min(
          1000,
          (await rows(visitorHitsSql(DUCKDB_DIALECT, TABLE, { accountId, visitorId: visitorOf(n), startMs: shape.startMs, endMs: end, limit: 1001 }))).length,
        ),
    },
  ];
}
