// The hit warehouse's table, column by column, in both engines. The stores write it, the reporting
// queries read it; both refer to these names. One column per thing a report groups, filters or sums
// by (tracking fields, visitor attributes and custom events included), so a report reads only the
// columns it names.

/** Tracking-field slots and their columns (`tf_campaign`, `tf_external`, `tf_c1`..`tf_c20`). */
export const TRACKING_SLOTS: readonly string[] = ['campaign', 'external', ...Array.from({ length: 20 }, (_, i) => `c${i + 1}`)];
export const trackingColumn = (slot: string): string => `tf_${slot}`;

/** Hit.visitor field -> column. */
export const VISITOR_COLUMNS = {
  deviceType: 'device_type',
  brand: 'brand',
  model: 'model',
  os: 'os',
  osVersion: 'os_version',
  browser: 'browser',
  browserVersion: 'browser_version',
  mainLanguage: 'main_language',
  browserLanguage: 'browser_language',
  city: 'city',
  region: 'region',
  continent: 'continent',
  timezone: 'timezone',
  isp: 'isp',
  connectionType: 'connection_type',
  mobileCarrier: 'mobile_carrier',
  referrer: 'referrer',
  userAgent: 'user_agent',
} as const;

/** The columns of a middleware call: config id ("" on other hits), route matched, default's reason, status, latency. */
export const MIDDLEWARE_COLUMNS = ['mw_config', 'mw_matched_route', 'mw_default_reason', 'mw_status', 'mw_latency_ms'] as const;

/** Custom event number (1..10) -> column (`ce_1`..`ce_10`, counts). */
export const customEventColumn = (n: number): string => `ce_${n}`;
export const CUSTOM_EVENT_NUMBERS: readonly number[] = Array.from({ length: 10 }, (_, i) => i + 1);

/**
 * The columns, in order, with their DuckDB and ClickHouse types. Text columns hold "" for "no value"
 * (a report's N/A). Times are UTC epoch milliseconds (`time_ms`; ClickHouse keeps `time` as
 * DateTime64(3) for its sort key and partitions, and `time_ms` as a MATERIALIZED column of it).
 * Conversions: `conversions` is the JSON list of the hit's conversions (as the Hit record has them),
 * with `conversion_count` and `revenue` (their payout sum) kept beside it for counting at the visit's
 * time; counting at each conversion's own time reads the JSON of the hits with `conversion_count > 0`.
 * No list column changes after a hit is written (an UPDATE touching a list column costs DuckDB a
 * delete and re-insert of the row); `visitor_tags` is written once.
 */
export const WAREHOUSE_COLUMNS: readonly { name: string; duckdb: string; clickhouse: string }[] = [
  { name: 'account_id', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'hit_id', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'visitor_id', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'id_funnel', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'id_funnel_group', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'id_traffic_source', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'id_node', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'id_page', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  { name: 'node_type', duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "LowCardinality(String) DEFAULT ''" },
  { name: 'id_offer_source', duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "String DEFAULT ''" },
  { name: 'country_code', duckdb: 'VARCHAR NOT NULL', clickhouse: 'LowCardinality(String)' },
  { name: 'ip', duckdb: 'VARCHAR NOT NULL', clickhouse: 'String' },
  ...TRACKING_SLOTS.map((slot) => ({ name: trackingColumn(slot), duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "String DEFAULT ''" })),
  { name: 'time_ms', duckdb: 'BIGINT NOT NULL', clickhouse: 'Int64 MATERIALIZED toUnixTimestamp64Milli(time)' },
  { name: 'is_entrance', duckdb: 'BOOLEAN NOT NULL', clickhouse: 'UInt8' },
  { name: 'action', duckdb: 'UTINYINT NOT NULL DEFAULT 0', clickhouse: 'UInt8 DEFAULT 0' },
  { name: 'previous_hit_id', duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "String DEFAULT ''" },
  ...Object.values(VISITOR_COLUMNS).map((name) => ({ name, duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "String DEFAULT ''" })),
  { name: 'visitor_tags', duckdb: 'VARCHAR[] NOT NULL DEFAULT []', clickhouse: 'Array(String) DEFAULT []' },
  { name: 'cost', duckdb: 'DECIMAL(18,6) NOT NULL', clickhouse: 'Decimal(18, 6)' },
  { name: 'conversions', duckdb: "VARCHAR NOT NULL DEFAULT '[]'", clickhouse: "String DEFAULT '[]'" },
  { name: 'conversion_count', duckdb: 'UINTEGER NOT NULL DEFAULT 0', clickhouse: 'UInt32 DEFAULT 0' },
  { name: 'revenue', duckdb: 'DECIMAL(18,6) NOT NULL DEFAULT 0', clickhouse: 'Decimal(18, 6) DEFAULT 0' },
  ...CUSTOM_EVENT_NUMBERS.map((n) => ({ name: customEventColumn(n), duckdb: 'UINTEGER NOT NULL DEFAULT 0', clickhouse: 'UInt32 DEFAULT 0' })),
  { name: 'postback_called', duckdb: 'BOOLEAN NOT NULL', clickhouse: 'UInt8' },
  { name: 'clicks', duckdb: 'UINTEGER NOT NULL DEFAULT 0', clickhouse: 'UInt32 DEFAULT 0' },
  // A middleware node's call (Hit.middleware): "" / 0 on every other hit. Added last, so older tables get them appended.
  ...MIDDLEWARE_COLUMNS.map((name) =>
    name === 'mw_status' || name === 'mw_latency_ms'
      ? { name, duckdb: 'UINTEGER NOT NULL DEFAULT 0', clickhouse: 'UInt32 DEFAULT 0' }
      : { name, duckdb: "VARCHAR NOT NULL DEFAULT ''", clickhouse: "String DEFAULT ''" },
  ),
];
