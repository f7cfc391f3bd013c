/**
 * The hit warehouse. Adapters: embedded SQLite under DATA_DIR (default) and ClickHouse
 * (`CLICKHOUSE_URL`). One contract suite runs against both.
 *
 * Every call is scoped to one account. Time windows are start inclusive, end exclusive.
 * Idempotency of reporting jobs rests on `appliedJobRows`: a job row is recorded in the same write
 * that applies it, so a redelivered job skips the rows it already applied.
 */
export const HIT_STORE = Symbol('HIT_STORE');
