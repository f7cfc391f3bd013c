// The six measured queries: each as the HTTP request a client sends (the contract of
// libs/contracts/src/reporting/queries.ts) and as the SQL that answers it on the engine alone,
// written by hand against the warehouse table (the service's own SQL is built per request inside
// the reporting service and not exposed). Both give the same answer: a page of groups with their
// exact count and a totals row, or a page of hits.
import type { DrilldownRequest, ExplorerVisitorRequest, RawEventsRequest } from '@funnel/contracts';
import { DAY_MS, type Dataset } from './dataset';
import type { DatasetShape } from './hits-sql';

/** One statement for the engine: SQL with `?` parameters. */
export interface EngineStatement {
  sql: string;
  /** Times as bigint: a BIGINT column compared with a DOUBLE parameter would lose the time-ordered file's pruning. */
  params: (string | bigint)[];
}

export interface BenchQuery {
  name: string;
  /** POST path under /v1 and its body; `iteration` lets a query vary per request (another visitor). */
  http(iteration: number): { path: string; body: DrilldownRequest | RawEventsRequest | ExplorerVisitorRequest };
  /** The same answer on the engine: statements run one after the other. */
  engine(iteration: number): EngineStatement[];
  /** What the answer must hold, checked once on each side: rowsTotal of a drilldown, hits of a page. */
  expect: 'rowsTotal' | 'hits';
  /** For `hits`: the page's size (the engine reads one more row, to know whether a next page exists). */
  hitsPerPage?: number;
}

const TS = 'Third Parties: Traffic Source';
const FUNNEL = 'Element: Funnel';
const COUNTRY = 'Location: Country';

interface Metric {
  label: string;
  /** An aggregate over hits (base metrics) or an expression over the base metrics' aliases (derived). */
  sql: string;
  alias: string;
  derived?: boolean;
}

const ratio = (a: string, b: string) => `${a} / nullif(${b}, 0)`;
/** Every metric of the reference model (reporting.md), with the SQL the engine computes it by. */
const METRICS: Metric[] = [
  { label: 'Entrances', alias: 'entrances', sql: 'count(*) FILTER (WHERE is_entrance)' },
  { label: 'Unique Entrances', alias: 'unique_entrances', sql: 'count(DISTINCT visitor_id) FILTER (WHERE is_entrance)' },
  { label: 'Node Views', alias: 'node_views', sql: 'count(*)' },
  { label: 'Lander Views', alias: 'lander_views', sql: "count(*) FILTER (WHERE node_type = 'landerGroup')" },
  { label: 'Lander Clicks', alias: 'lander_clicks', sql: "coalesce(sum(clicks) FILTER (WHERE node_type = 'landerGroup'), 0)" },
  { label: 'Offer Views', alias: 'offer_views', sql: "count(*) FILTER (WHERE node_type = 'offerGroup')" },
  { label: 'Offer Clicks', alias: 'offer_clicks', sql: "coalesce(sum(clicks) FILTER (WHERE node_type = 'offerGroup'), 0)" },
  { label: 'Conv.', alias: 'conversions', sql: 'coalesce(sum(conversion_count), 0)' },
  { label: 'Revenue', alias: 'revenue', sql: 'coalesce(sum(revenue), 0)' },
  { label: 'Cost', alias: 'cost', sql: 'coalesce(sum(cost), 0)' },
  { label: 'P/L', alias: 'pl', sql: 'revenue - cost', derived: true },
  { label: 'ROI', alias: 'roi', sql: ratio('revenue - cost', 'cost'), derived: true },
  { label: 'Lander CTR', alias: 'lander_ctr', sql: ratio('lander_clicks', 'lander_views'), derived: true },
  { label: 'Offer CTR', alias: 'offer_ctr', sql: ratio('offer_clicks', 'offer_views'), derived: true },
  { label: 'EPa', alias: 'epa', sql: ratio('revenue', 'conversions'), derived: true },
  { label: 'CPa', alias: 'cpa', sql: ratio('cost', 'conversions'), derived: true },
  ...(
    [
      ['e', 'entrances'],
      ['ov', 'offer_views'],
      ['lv', 'lander_views'],
      ['nv', 'node_views'],
    ] as const
  ).flatMap(([suffix, per]) => [
    { label: `CVR${suffix}`, alias: `cvr${suffix}`, sql: ratio('conversions', per), derived: true },
    { label: `EP${suffix}`, alias: `ep${suffix}`, sql: ratio('revenue', per), derived: true },
    { label: `CP${suffix}`, alias: `cp${suffix}`, sql: ratio('cost', per), derived: true },
  ]),
  ...Array.from({ length: 10 }, (_, i) => ({ label: `Custom Event ${i + 1}`, alias: `ce${i + 1}`, sql: `coalesce(sum(ce_${i + 1}), 0)` })),
];

/** What a buyer's report usually shows (no distinct counts). */
const BUYER_METRICS = [
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
const ALL_METRICS = METRICS.map((m) => m.label);

/** The base metrics a list of metrics needs (derived ones read base aliases). */
function baseMetricsFor(labels: string[]): Metric[] {
  const wanted = METRICS.filter((m) => labels.includes(m.label));
  const needed = new Set(wanted.filter((m) => !m.derived).map((m) => m.alias));
  for (const m of wanted.filter((d) => d.derived)) for (const base of METRICS.filter((b) => !b.derived)) if (m.sql.includes(base.alias)) needed.add(base.alias);
  // Sorting is by Entrances by default: always computed.
  needed.add('entrances');
  return METRICS.filter((m) => !m.derived && needed.has(m.alias));
}

interface Grouping {
  column: string;
  /** Asset ids to keep (an asset attribute's whitelist). */
  keep?: string[];
}

/**
 * A drilldown page and its totals on the engine: the groups of `groupings` over the hits of the
 * window (and the whitelists, and the tree's pinned parent), every metric asked, sorted by
 * Entrances (then the grouping values), `count(*) OVER ()` for the exact row count, one page; then
 * the totals row over the same hits without the pin (the report's totals).
 */
function drilldownSql(
  accountId: string,
  window: [number, number],
  groupings: Grouping[],
  pinned: Grouping[],
  labels: string[],
  length: number,
): EngineStatement[] {
  const base = baseMetricsFor(labels);
  const derived = METRICS.filter((m) => m.derived && labels.includes(m.label));
  const where = ['account_id = ?', 'time_ms >= ?', 'time_ms < ?'];
  const params: (string | bigint)[] = [accountId, BigInt(window[0]), BigInt(window[1])];
  for (const g of groupings.filter((x) => x.keep)) {
    where.push(`${g.column} IN (${g.keep!.map(() => '?').join(', ')})`);
    params.push(...g.keep!);
  }
  const totalsWhere = [...where];
  const totalsParams = [...params];
  for (const g of pinned) {
    where.push(`${g.column} = ?`);
    params.push(g.keep![0]);
  }
  const keys = groupings.slice(pinned.length).map((g) => g.column);
  const aggregates = base.map((m) => `${m.sql} AS ${m.alias}`).join(', ');
  const outer = [...base.map((m) => m.alias), ...derived.map((m) => `${m.sql} AS ${m.alias}`)].join(', ');
  const page = `SELECT ${keys.join(', ')}, ${outer}, count(*) OVER () AS rows_total
FROM (SELECT ${keys.join(', ')}, ${aggregates} FROM hits WHERE ${where.join(' AND ')} GROUP BY ${keys.join(', ')})
ORDER BY entrances DESC, ${keys.join(', ')} LIMIT ${length} OFFSET 0`;
  const totals = `SELECT ${outer} FROM (SELECT ${aggregates} FROM hits WHERE ${totalsWhere.join(' AND ')})`;
  return [
    { sql: page, params },
    { sql: totals, params: totalsParams },
  ];
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
  const drilldown = (body: Omit<DrilldownRequest, 'timeStart' | 'timeEnd' | 'paging'>) => () => ({
    path: '/reporting/drilldown',
    body: { ...times, timeZone: 'UTC', paging: page, ...body },
  });
  return [
    {
      name: '1-level drilldown (traffic source, every metric incl. Unique Entrances)',
      expect: 'rowsTotal',
      http: drilldown({ groupings: [{ groupBy: TS }], metrics: ALL_METRICS }),
      engine: () => drilldownSql(accountId, window, [{ column: 'id_traffic_source' }], [], ALL_METRICS, page.length),
    },
    {
      name: '2-level drilldown (traffic source x country, 13 metrics)',
      expect: 'rowsTotal',
      http: drilldown({ groupings: [{ groupBy: TS }, { groupBy: COUNTRY }], metrics: BUYER_METRICS }),
      engine: () => drilldownSql(accountId, window, [{ column: 'id_traffic_source' }, { column: 'country_code' }], [], BUYER_METRICS, page.length),
    },
    {
      name: '3-level tree expansion (source > funnel > country, the third level under one source and funnel)',
      expect: 'rowsTotal',
      http: drilldown({
        groupings: [{ groupBy: TS }, { groupBy: FUNNEL }, { groupBy: COUNTRY }],
        topLevelFilters: [
          { groupBy: TS, whitelistFilters: [source] },
          { groupBy: FUNNEL, whitelistFilters: [funnel] },
        ],
        options: { viewType: 'tree' },
        metrics: BUYER_METRICS,
      }),
      engine: () =>
        drilldownSql(
          accountId,
          window,
          [{ column: 'id_traffic_source' }, { column: 'id_funnel' }, { column: 'country_code' }],
          [
            { column: 'id_traffic_source', keep: [source] },
            { column: 'id_funnel', keep: [funnel] },
          ],
          BUYER_METRICS,
          page.length,
        ),
    },
    {
      name: "tracking-field drilldown (one source's c1 values)",
      expect: 'rowsTotal',
      http: drilldown({ groupings: [{ groupBy: TS, whitelistFilters: [source] }, { groupBy: 'c1' }], metrics: BUYER_METRICS }),
      engine: () => drilldownSql(accountId, window, [{ column: 'id_traffic_source', keep: [source] }, { column: 'tf_c1' }], [], BUYER_METRICS, page.length),
    },
    {
      name: 'raw-events page (newest 100 hits of one source, every field)',
      expect: 'hits',
      hitsPerPage: 100,
      http: () => ({ path: '/reporting/rawevents', body: { ...times, filters: [{ groupBy: TS, whitelistFilters: [source] }], limit: 100 } }),
      engine: () => [
        {
          sql: 'SELECT * FROM hits WHERE account_id = ? AND time_ms >= ? AND time_ms < ? AND id_traffic_source = ? ORDER BY time_ms DESC, hit_id DESC LIMIT 101',
          params: [accountId, BigInt(window[0]), BigInt(window[1]), source],
        },
      ],
    },
    {
      name: "visitor lookup (a visitor's hits over the 30 days; another visitor each time)",
      expect: 'hits',
      hitsPerPage: 1000,
      http: (n) => ({
        path: '/reporting/explorer/visitor',
        body: { visitorId: visitorIds[n % visitorIds.length], timeStart: new Date(shape.startMs).toISOString(), timeEnd: new Date(end).toISOString() },
      }),
      engine: (n) => [
        {
          sql: 'SELECT * FROM hits WHERE account_id = ? AND visitor_id = ? AND time_ms >= ? AND time_ms < ? ORDER BY time_ms, hit_id LIMIT 1001',
          params: [accountId, visitorIds[n % visitorIds.length], BigInt(shape.startMs), BigInt(end)],
        },
      ],
    },
  ];
}
