/** A window query of one account's log (already validated): the time window and the page. */
export interface LogWindow {
  accountId: string;
  /** Inclusive, epoch ms. */
  startMs: number;
  /** Exclusive, epoch ms. */
  endMs: number;
  start: number;
  length: number;
}

/** A filter: the column and the values it may hold (none or empty: no filter). */
export type LogFilter = readonly [column: string, values: readonly string[] | undefined];

export type ParamType = 'String' | 'Int64';

/** A placeholder of the n-th parameter (1-based) in an engine's SQL. */
export type Placeholder = (n: number, type: ParamType) => string;

export const DUCKDB_PLACEHOLDER: Placeholder = (n) => `$${n}`;
export const CLICKHOUSE_PLACEHOLDER: Placeholder = (n, type) => `{p${n}:${type}}`;

/** ClickHouse's `query_params` of parameters bound with CLICKHOUSE_PLACEHOLDER. */
export function clickhouseParams(params: readonly (string | number)[]): Record<string, string | number> {
  return Object.fromEntries(params.map((value, i) => [`p${i + 1}`, value]));
}

/** What a log's window query reads: the FROM item (a table, or a subquery), its columns, its order and filters. */
export interface WindowQuerySpec {
  from: string;
  select: string;
  /** Newest first, ties broken so that pages never overlap. */
  orderBy: string;
  filters: readonly LogFilter[];
}

export interface WindowQuery {
  /** The account, the window on `time_ms` (parameters 1, 2 and 3, in that order) and each filter given as an IN list. */
  where: string;
  /** The count of the window's rows, as `n`. */
  total: string;
  /** One page of them. */
  page: string;
  params: Array<string | number>;
}

/** A window query, the same text for both engines but for its placeholders. */
export function windowQuery(window: LogWindow, spec: WindowQuerySpec, placeholder: Placeholder): WindowQuery {
  const params: Array<string | number> = [];
  const bind = (value: string | number, type: ParamType) => {
    params.push(value);
    return placeholder(params.length, type);
  };
  const clauses = [
    `account_id = ${bind(window.accountId, 'String')}`,
    `time_ms >= ${bind(window.startMs, 'Int64')}`,
    `time_ms < ${bind(window.endMs, 'Int64')}`,
  ];
  for (const [column, values] of spec.filters) {
    if (values?.length) clauses.push(`${column} IN (${values.map((v) => bind(v, 'String')).join(', ')})`);
  }
  const where = clauses.join(' AND ');
  return {
    where,
    total: `SELECT count(*) AS n FROM ${spec.from} WHERE ${where}`,
    page: `SELECT ${spec.select} FROM ${spec.from} WHERE ${where}
      ORDER BY ${spec.orderBy} LIMIT ${Math.trunc(window.length)} OFFSET ${Math.trunc(window.start)}`,
    params,
  };
}

/** Runs a statement and answers its rows as objects (numbers as the engine gives them). */
export type RunSql = <T>(sql: string) => Promise<T[]>;

/** The count, then the page's rows unless the page starts past it. */
export async function readWindowPage<Stored, Row>(
  run: RunSql,
  query: Pick<WindowQuery, 'total' | 'page'>,
  start: number,
  rowOf: (row: Stored) => Row,
): Promise<{ rows: Row[]; rowsTotal: number }> {
  const rowsTotal = Number((await run<{ n: number | bigint | string }>(query.total))[0]?.n ?? 0);
  if (rowsTotal <= start) return { rows: [], rowsTotal };
  return { rows: (await run<Stored>(query.page)).map(rowOf), rowsTotal };
}
