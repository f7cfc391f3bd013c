export * from './webhook-jobs';
export * from './webhook-events';
export * from './webhook-payload';
export * from './webhook-log-store';
export * from './duckdb-webhook-log-store';
export * from './clickhouse-webhook-log-store';
export * from './open-webhook-log';
export * from './webhook-sender';
