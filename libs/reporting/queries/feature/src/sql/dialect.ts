/** A query parameter's type (ClickHouse names; DuckDB infers from the bound value). */
export type ParamType = 'String' | 'Int64' | 'Float64';

/** Collects a query's parameters: user-given values never enter the SQL text. */
export class Params {
  readonly values: Record<string, string | number | bigint> = {};
  private next = 0;

  constructor(private readonly dialect: Dialect) {}

  /** The placeholder of a new parameter holding `value`. */
  add(value: string | number, type: ParamType): string {
    const name = `p${this.next++}`;
    this.values[name] = this.dialect.engine === 'duckdb' && type === 'Int64' ? BigInt(value) : value;
    return this.dialect.placeholder(name, type);
  }
}

/** What differs between the engines' SQL. */
export interface Dialect {
  engine: 'duckdb' | 'clickhouse';
  placeholder(name: string, type: ParamType): string;
  /** The hits table as a FROM item, with the condition of live rows (ClickHouse: FINAL, not deleted). */
  from(table: string): { from: string; live: string | null };
  /** Rows of the window [start, end): on the column the engine's index sorts by. */
  timeAtLeast(startParam: string): string;
  timeBefore(endParam: string): string;
  /** Case-insensitive LIKE with `\` escaping `%`, `_` and `\`. */
  ilike(expression: string, pattern: string): string;
  isEntrance: string;
  intDiv(a: string, b: number): string;
  toDouble(expression: string): string;
  /** Decimal as exact text. */
  decimalText(expression: string): string;
  /** Distinct non-null values of `expression` where `condition`. */
  countDistinctIf(expression: string, condition: string): string;
  /** Some value of `expression` in the group (all equal where it is used). */
  anyValue(expression: string): string;
  /** The first capture group of an RE2 regular expression, "" when none. */
  regexpGroup(expression: string, regexp: string): string;
  /** Visitor tags: an empty array test, an array holding a value, holding any of values. */
  tagsEmpty: string;
  tagsHas(value: string): string;
  tagsHasAny(values: string[]): string;
  /** `relation` with one row per visitor tag of each hit (a hit without tags once, with ""), as column `tag`. */
  expandTags(relation: string): string;
  /**
   * One row per conversion of the hits `where` selects whose time is in [start, end): every hit
   * column, `t` the conversion's time, `hit_row` false, `conv` 1 and `rev` its payout. The
   * conversions are read from the hit's `conversions` JSON text (`where` keeps to hits with
   * `conversion_count > 0`, so only those are parsed).
   */
  conversionRows(from: string, where: string, startParam: string, endParam: string): string;
  /** Every column of a hit row (ClickHouse leaves MATERIALIZED columns out of `*`). */
  star: string;
  true: string;
}

/** The fields of a conversion (in the `conversions` JSON text) event attribution reads: its payout (decimal text) and time (ISO 8601, UTC). */
const CONVERSION_SHAPE = '[{"payout":"VARCHAR","time":"VARCHAR"}]';

export const DUCKDB_DIALECT: Dialect = {
  engine: 'duckdb',
  placeholder: (name) => `$${name}`,
  from: (table) => ({ from: table, live: null }),
  timeAtLeast: (start) => `time_ms >= ${start}`,
  timeBefore: (end) => `time_ms < ${end}`,
  ilike: (expression, pattern) => `${expression} ILIKE ${pattern} ESCAPE '\\'`,
  isEntrance: 'is_entrance',
  intDiv: (a, b) => `(${a} // ${b})`,
  toDouble: (expression) => `CAST(${expression} AS DOUBLE)`,
  decimalText: (expression) => `CAST(${expression} AS VARCHAR)`,
  countDistinctIf: (expression, condition) => `count(DISTINCT ${expression}) FILTER (WHERE ${condition})`,
  anyValue: (expression) => `any_value(${expression})`,
  regexpGroup: (expression, regexp) => `regexp_extract(${expression}, '${regexp}', 1)`,
  tagsEmpty: 'len(visitor_tags) = 0',
  tagsHas: (value) => `list_contains(visitor_tags, ${value})`,
  tagsHasAny: (values) => `list_has_any(visitor_tags, [${values.join(', ')}])`,
  expandTags: (relation) => `(SELECT *, unnest(CASE WHEN len(visitor_tags) = 0 THEN [''] ELSE visitor_tags END) AS tag FROM ${relation} AS untagged)`,
  conversionRows: (from, where, start, end) =>
    `SELECT * EXCLUDE (c, ct), ct AS t, FALSE AS hit_row, CAST(1 AS UINTEGER) AS conv, CAST(struct_extract(c, 'payout') AS DECIMAL(18, 6)) AS rev FROM ` +
    `(SELECT *, epoch_ms(CAST(struct_extract(c, 'time') AS TIMESTAMP)) AS ct FROM (SELECT *, unnest(from_json(conversions, '${CONVERSION_SHAPE}')) AS c FROM ${from} WHERE ${where}) AS expanded) AS converted ` +
    `WHERE ct >= ${start} AND ct < ${end}`,
  star: '*',
  true: 'TRUE',
};

export const CLICKHOUSE_DIALECT: Dialect = {
  engine: 'clickhouse',
  placeholder: (name, type) => `{${name}:${type}}`,
  from: (table) => ({ from: `${table} FINAL`, live: 'deleted = 0' }),
  timeAtLeast: (start) => `time >= fromUnixTimestamp64Milli(${start}, 'UTC')`,
  timeBefore: (end) => `time < fromUnixTimestamp64Milli(${end}, 'UTC')`,
  ilike: (expression, pattern) => `ilike(${expression}, ${pattern})`,
  isEntrance: 'is_entrance = 1',
  intDiv: (a, b) => `intDiv(${a}, ${b})`,
  toDouble: (expression) => `toFloat64(${expression})`,
  decimalText: (expression) => `toString(${expression})`,
  countDistinctIf: (expression, condition) => `uniqExactIf(${expression}, ${condition})`,
  anyValue: (expression) => `any(${expression})`,
  regexpGroup: (expression, regexp) => `extract(${expression}, '${regexp}')`,
  tagsEmpty: 'empty(visitor_tags)',
  tagsHas: (value) => `has(visitor_tags, ${value})`,
  tagsHasAny: (values) => `hasAny(visitor_tags, [${values.join(', ')}])`,
  expandTags: (relation) => `(SELECT *, tag FROM ${relation} AS untagged ARRAY JOIN if(empty(visitor_tags), [''], visitor_tags) AS tag)`,
  conversionRows: (from, where, start, end) =>
    `SELECT *, time_ms, toUnixTimestamp64Milli(parseDateTime64BestEffort(JSONExtractString(c, 'time'), 3, 'UTC')) AS t, toUInt8(0) AS hit_row, toUInt32(1) AS conv, ` +
    `toDecimal64(JSONExtractString(c, 'payout'), 6) AS rev FROM ${from} ARRAY JOIN JSONExtractArrayRaw(conversions) AS c WHERE ${where} AND t >= ${start} AND t < ${end}`,
  star: '*, time_ms',
  true: '1',
};
