export * from './log-table';
export * from './log-window';
export * from './log-query-timeout';
export * from './serial';
export * from './duckdb-log-connections';
export * from './clickhouse-log';
export * from './log-route';
