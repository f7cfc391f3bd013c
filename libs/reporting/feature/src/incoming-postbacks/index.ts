export * from './incoming-log-store';
export * from './duckdb-incoming-log-store';
export * from './clickhouse-incoming-log-store';
export * from './open-incoming-log';
export * from './incoming-jobs';
export * from './incoming-postbacks.service';
export * from './incoming-postbacks.message.controller';
export * from './incoming-batches';
