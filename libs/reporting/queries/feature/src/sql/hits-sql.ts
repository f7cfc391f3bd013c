import type { AttributeFilter } from '@funnel/reporting-queries-domain';
import { HIT_READ_COLUMNS } from '@funnel/reporting-feature';
import { Params, type Dialect } from './dialect';
import type { BuiltQuery } from './drilldown-sql';
import { SqlContext } from './expressions';

/** A hit's columns as the stores read them (HIT_READ_COLUMNS), money as text the same way in both engines. */
function hitColumns(dialect: Dialect): string {
  return HIT_READ_COLUMNS.map((column) => (column === 'cost' ? `${dialect.decimalText('cost')} AS cost` : column)).join(', ');
}

/** The account's live hits in [startMs, endMs) and `more` conditions, as one WHERE (ClickHouse filters on its sort key `time`). */
function accountWindow(ctx: SqlContext, dialect: Dialect, live: string | null, accountId: string, startMs: number, endMs: number, ...more: string[]): string {
  return [
    `account_id = ${ctx.text(accountId)}`,
    dialect.timeAtLeast(ctx.params.add(startMs, 'Int64')),
    dialect.timeBefore(ctx.params.add(endMs, 'Int64')),
    live,
    ...more,
  ]
    .filter(Boolean)
    .join(' AND ');
}

/** A hit's place in the newest-first order of raw events. */
export interface HitKey {
  timeMs: number;
  hitId: string;
}

/**
 * The keys (`time_ms`, `hit_id`) of a page of raw events: the account's hits in the window that pass
 * the filters, newest first, before the cursor, `limit` of them. A narrow top-N (two columns besides
 * the filters'); hitsByKeysSql then reads the page's columns.
 */
export function rawEventKeysSql(
  dialect: Dialect,
  table: string,
  query: { accountId: string; startMs: number; endMs: number; filters: AttributeFilter[]; before?: HitKey; limit: number },
): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect));
  const { from, live } = dialect.from(table);
  const endMs = query.before ? Math.min(query.endMs, query.before.timeMs + 1) : query.endMs;
  const more = query.filters.flatMap((filter) => ctx.filterPredicates(filter));
  if (query.before) {
    const time = ctx.params.add(query.before.timeMs, 'Int64');
    more.push(`(time_ms < ${time} OR (time_ms = ${time} AND hit_id < ${ctx.text(query.before.hitId)}))`);
  }
  const where = accountWindow(ctx, dialect, live, query.accountId, query.startMs, endMs, ...more);
  const sql = `SELECT time_ms, hit_id FROM ${from} WHERE ${where} ORDER BY time_ms DESC, hit_id DESC LIMIT ${ctx.params.add(query.limit, 'Int64')}`;
  return { sql, params: ctx.params.values };
}

/** The account's hits of `keys` (at least one), newest first: bounded by the keys' times, so only the row groups holding them are read. */
export function hitsByKeysSql(dialect: Dialect, table: string, accountId: string, keys: readonly HitKey[]): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect));
  const { from, live } = dialect.from(table);
  const times = keys.map((key) => key.timeMs);
  const where = accountWindow(
    ctx,
    dialect,
    live,
    accountId,
    Math.min(...times),
    Math.max(...times) + 1,
    `hit_id IN (${keys.map((key) => ctx.text(key.hitId)).join(', ')})`,
  );
  return {
    sql: `SELECT ${hitColumns(dialect)} FROM ${from} WHERE ${where} ORDER BY time_ms DESC, hit_id DESC`,
    params: ctx.params.values,
  };
}

/** Columns a visitor's hits carry besides the hit: its conversion count and revenue (exact text), for the visitor's summary. */
export const VISITOR_HIT_CONVERSIONS = 'summary_conversions';
export const VISITOR_HIT_REVENUE = 'summary_revenue';

/** A visitor's hits in the window, oldest first (`limit` of them), with their conversion counts and revenue. */
export function visitorHitsSql(
  dialect: Dialect,
  table: string,
  query: { accountId: string; visitorId: string; startMs: number; endMs: number; limit: number },
): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect));
  const { from, live } = dialect.from(table);
  const where = accountWindow(ctx, dialect, live, query.accountId, query.startMs, query.endMs, `visitor_id = ${ctx.text(query.visitorId)}`);
  return {
    sql: `SELECT ${hitColumns(dialect)}, conversion_count AS ${VISITOR_HIT_CONVERSIONS}, ${dialect.decimalText('revenue')} AS ${VISITOR_HIT_REVENUE} FROM ${from} WHERE ${where} ORDER BY time_ms ASC, hit_id ASC LIMIT ${ctx.params.add(query.limit, 'Int64')}`,
    params: ctx.params.values,
  };
}

/** The visitor's totals over the window: hits, conversions, revenue, cost, first and last hit times (asked when the visitor has more hits than a lookup shows). */
export function visitorSummarySql(
  dialect: Dialect,
  table: string,
  query: { accountId: string; visitorId: string; startMs: number; endMs: number },
): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect));
  const { from, live } = dialect.from(table);
  const where = accountWindow(ctx, dialect, live, query.accountId, query.startMs, query.endMs, `visitor_id = ${ctx.text(query.visitorId)}`);
  return {
    sql: `SELECT count(*) AS hits, sum(conversion_count) AS conversions, ${dialect.decimalText('sum(revenue)')} AS revenue, ${dialect.decimalText('sum(cost)')} AS cost, min(time_ms) AS first_ms, max(time_ms) AS last_ms FROM ${from} WHERE ${where}`,
    params: ctx.params.values,
  };
}

/** One hit of the account by id (a scan when the store has no id index). */
export function hitByIdSql(dialect: Dialect, table: string, accountId: string, hitId: string): BuiltQuery {
  const ctx = new SqlContext(dialect, new Params(dialect));
  const { from, live } = dialect.from(table);
  const where = [`account_id = ${ctx.text(accountId)}`, `hit_id = ${ctx.text(hitId)}`, live];
  return { sql: `SELECT ${hitColumns(dialect)} FROM ${from} WHERE ${where.filter(Boolean).join(' AND ')} LIMIT 1`, params: ctx.params.values };
}
