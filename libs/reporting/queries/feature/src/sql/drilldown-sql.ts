import { BASE_AGGREGATES, basesOf, contextKey, groupingKey, type AttributeFilter, type ResolvedDrilldown } from '@funnel/reporting-queries-domain';
import { Params, type Dialect } from './dialect';
import { SqlContext, baseColumn } from './expressions';

export interface BuiltQuery {
  sql: string;
  params: Record<string, string | number | bigint>;
}

/** The money base aggregates' text columns (exact decimals): `m_<key>`. */
export const moneyTextColumn = (key: string) => `m_${key}`;
export const ROWS_TOTAL_COLUMN = 'rows_total';

/** The base aggregates a request reads: its metrics', its metric filters' and its sorting's. */
function neededBases(resolved: ResolvedDrilldown): typeof BASE_AGGREGATES {
  const keys = new Set<string>();
  for (const metric of resolved.metrics) basesOf(metric.expression, keys);
  for (const filter of resolved.metricFilters) basesOf(filter.metric.expression, keys);
  for (const { target } of resolved.sorting) if (target.kind === 'metric') basesOf(target.metric.expression, keys);
  return BASE_AGGREGATES.filter((base) => keys.has(base.key));
}

/**
 * The source relation of a drilldown: the account's hits in the window with `t` (the time a row
 * counts at), `hit_row`, `conv` and `rev`. Entrance attribution: hits only (conversions and revenue at
 * the hit's time). Event attribution: the window's hits (without conversions) and, added to them, one
 * row per conversion whose own time is in the window (of any earlier hit), at that time.
 */
function sourceOf(ctx: SqlContext, table: string, accountId: string, resolved: ResolvedDrilldown): string {
  const { dialect } = ctx;
  const { from, live } = dialect.from(table);
  const start = ctx.params.add(resolved.window.startMs, 'Int64');
  const end = ctx.params.add(resolved.window.endMs, 'Int64');
  const account = `account_id = ${ctx.text(accountId)}`;
  const inWindow = [account, dialect.timeAtLeast(start), dialect.timeBefore(end), live].filter(Boolean).join(' AND ');
  if (resolved.timeAttribution === 'entrance') {
    return `(SELECT ${dialect.star}, time_ms AS t, ${dialect.true} AS hit_row, conversion_count AS conv, revenue AS rev FROM ${from} WHERE ${inWindow})`;
  }
  const zeroConversions =
    dialect.engine === 'duckdb' ? 'CAST(0 AS UINTEGER) AS conv, CAST(0 AS DECIMAL(18, 6)) AS rev' : 'toUInt32(0) AS conv, toDecimal64(0, 6) AS rev';
  const hits = `SELECT ${dialect.star}, time_ms AS t, ${dialect.engine === 'duckdb' ? 'TRUE' : 'toUInt8(1)'} AS hit_row, ${zeroConversions} FROM ${from} WHERE ${inWindow}`;
  const converted = [account, dialect.timeBefore(end), 'conversion_count > 0', live].filter(Boolean).join(' AND ');
  return `(${hits} UNION ALL ${dialect.conversionRows(from, converted, start, end)})`;
}

/** Filters of every grouping, the pinned values of the top levels; `expanded`: the source has a `tag` row per visitor tag. */
function predicatesOf(ctx: SqlContext, resolved: ResolvedDrilldown, expanded: boolean): string[] {
  return resolved.groupings.flatMap((filter: AttributeFilter, level) => ctx.filterPredicates(filter, resolved.pinned[level], expanded));
}

const groupsByTags = (resolved: ResolvedDrilldown) => resolved.groupings.slice(0, resolved.levels).some(({ attribute }) => attribute.source.kind === 'tags');

/** The filtered rows of the source (tag-expanded when `expanded`), with parameters of their own each time a query reads them. */
function filteredRows(
  ctx: SqlContext,
  table: string,
  accountId: string,
  resolved: ResolvedDrilldown,
  expanded: boolean,
): { relation: string; where: string[] } {
  const source = sourceOf(ctx, table, accountId, resolved);
  return { relation: expanded ? ctx.dialect.expandTags(source) : source, where: predicatesOf(ctx, resolved, expanded) };
}

const whereClause = (where: readonly string[]) => (where.length ? ` WHERE ${where.join(' AND ')}` : '');

/** The aggregation of the answer's levels (one row per group) over the filtered source, with the base aggregates as `b_<key>`. */
function groupedQuery(ctx: SqlContext, table: string, accountId: string, resolved: ResolvedDrilldown): string {
  const rows = filteredRows(ctx, table, accountId, resolved, groupsByTags(resolved));
  const levels = resolved.groupings.slice(0, resolved.levels);
  const select = [
    ...levels.map(({ attribute }, level) => `${ctx.attributeValue(attribute)} AS ${groupingKey(level)}`),
    // A node's funnel (node names live in funnels).
    ...levels.flatMap(({ attribute }, level) =>
      attribute.names.kind === 'funnelNode' ? [`${ctx.dialect.anyValue('id_funnel')} AS ${contextKey(level)}`] : [],
    ),
    ...neededBases(resolved).map((base) => `${ctx.aggregate(base)} AS ${baseColumn(base.key)}`),
  ];
  return `SELECT ${select.join(', ')} FROM ${rows.relation} AS source${whereClause(rows.where)} GROUP BY ${levels.map((_, level) => groupingKey(level)).join(', ')}`;
}

function havingOf(ctx: SqlContext, resolved: ResolvedDrilldown): string[] {
  return resolved.metricFilters.map((filter) => `${ctx.metricValue(filter.metric.expression)} ${filter.operator} ${ctx.params.add(filter.value, 'Float64')}`);
}

const moneyTexts = (ctx: SqlContext, resolved: ResolvedDrilldown) =>
  neededBases(resolved)
    .filter((base) => base.money)
    .map((base) => `${ctx.dialect.decimalText(baseColumn(base.key))} AS ${moneyTextColumn(base.key)}`);

/** The totals' base aggregates when the page query answers them: `t_<key>` (money as exact text in `tm_<key>`). */
export const totalColumn = (key: string) => `t_${key}`;
export const totalMoneyTextColumn = (key: string) => `tm_${key}`;

/**
 * Whether a drilldown's page query also answers the totals of its sums (on every row it returns), so
 * they need no second scan of the hits: the totals of sums are the sums of the groups' sums, before
 * the metric filters. Not when a level groups by visitor tags (a hit with two tags is in two groups
 * but counts once in the totals). Distinct counts are never additive: drilldownTotalsSql with
 * part `distinct` answers them.
 */
export function pageAnswersTotals(resolved: ResolvedDrilldown): boolean {
  return !groupsByTags(resolved);
}

/** Whether a drilldown reads a distinct count (not additive over the groups). */
export function readsDistinctCounts(resolved: ResolvedDrilldown): boolean {
  return neededBases(resolved).some((base) => base.aggregate.kind !== 'sum');
}

/** `sum(b_<key>) OVER ()` of every base aggregate the request reads, as t_<key> (and tm_<key>: money's exact text). */
function totalsOverGroups(ctx: SqlContext, resolved: ResolvedDrilldown): { sums: string[]; texts: string[] } {
  const bases = neededBases(resolved).filter((base) => base.aggregate.kind === 'sum');
  return {
    sums: bases.map((base) => `sum(${baseColumn(base.key)}) OVER () AS ${totalColumn(base.key)}`),
    texts: bases.filter((base) => base.money).map((base) => `${ctx.dialect.decimalText(totalColumn(base.key))} AS ${totalMoneyTextColumn(base.key)}`),
  };
}

/**
 * A page of a drilldown: the groups of the answer's levels that pass the metric filters, sorted (the
 * request's columns, then the grouping values ascending, so pages are stable), with the number of
 * such groups on every row (`rows_total`). When pageAnswersTotals, every row also holds the totals
 * (`t_<key>`, summed over all the groups before the metric filters: one scan of the hits).
 */
export function drilldownPageSql(dialect: Dialect, table: string, accountId: string, resolved: ResolvedDrilldown): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect), resolved.periods);
  const grouped = groupedQuery(ctx, table, accountId, resolved);
  const having = havingOf(ctx, resolved);
  const order = [
    ...resolved.sorting.map(({ target, order }) => {
      const value = target.kind === 'grouping' ? groupingKey(target.level) : ctx.metricValue(target.metric.expression);
      return `${value} ${order === 'asc' ? 'ASC' : 'DESC'} NULLS LAST`;
    }),
    ...resolved.groupings.slice(0, resolved.levels).map((_, level) => `${groupingKey(level)} ASC`),
  ];
  const limit = ctx.params.add(resolved.paging.length, 'Int64');
  const offset = ctx.params.add(resolved.paging.start, 'Int64');
  const totals = pageAnswersTotals(resolved) ? totalsOverGroups(ctx, resolved) : { sums: [], texts: [] };
  // The totals are summed one level below the metric filters (over every group).
  const source = totals.sums.length ? `(SELECT *, ${totals.sums.join(', ')} FROM (${grouped}) AS grouped) AS totaled` : `(${grouped}) AS grouped`;
  const sql = [
    `SELECT *, ${[...moneyTexts(ctx, resolved), ...totals.texts, `count(*) OVER () AS ${ROWS_TOTAL_COLUMN}`].join(', ')}`,
    `FROM ${source}`,
    having.length ? `WHERE ${having.join(' AND ')}` : '',
    `ORDER BY ${order.join(', ')}`,
    `LIMIT ${limit} OFFSET ${offset}`,
  ]
    .filter(Boolean)
    .join(' ');
  return { sql, params: ctx.params.values };
}

/** The number of groups a drilldown has (after metric filters): asked when a page starts past the last group. */
export function drilldownCountSql(dialect: Dialect, table: string, accountId: string, resolved: ResolvedDrilldown): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect), resolved.periods);
  const grouped = groupedQuery(ctx, table, accountId, resolved);
  const having = havingOf(ctx, resolved);
  return {
    sql: `SELECT count(*) AS ${ROWS_TOTAL_COLUMN} FROM (${grouped}) AS grouped${having.length ? ` WHERE ${having.join(' AND ')}` : ''}`,
    params: ctx.params.values,
  };
}

/** Which of a drilldown's totals a totals query answers: every one, the sums' or the distinct counts'. */
export type TotalsPart = 'all' | 'sums' | 'distinct';

/** The totals row: the base aggregates of `part` over every hit the filters select (one row per hit, whatever its tags). */
export function drilldownTotalsSql(dialect: Dialect, table: string, accountId: string, resolved: ResolvedDrilldown, part: TotalsPart = 'all'): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect), resolved.periods);
  const rows = filteredRows(ctx, table, accountId, resolved, false);
  const bases = neededBases(resolved).filter((base) => part === 'all' || (part === 'sums') === (base.aggregate.kind === 'sum'));
  const aggregates = bases.map((base) => `${ctx.aggregate(base)} AS ${baseColumn(base.key)}`);
  const texts = bases.filter((base) => base.money).map((base) => `, ${ctx.dialect.decimalText(baseColumn(base.key))} AS ${moneyTextColumn(base.key)}`);
  const inner = `SELECT ${aggregates.length ? aggregates.join(', ') : 'count(*) AS hits'} FROM ${rows.relation} AS source${whereClause(rows.where)}`;
  return { sql: `SELECT *${texts.join('')} FROM (${inner}) AS totals`, params: ctx.params.values };
}
