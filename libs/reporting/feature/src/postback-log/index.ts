export * from './postback-log-store';
export * from './duckdb-postback-log-store';
export * from './clickhouse-postback-log-store';
export * from './create-postback-log-store';
export * from './postback-log.message.controller';
