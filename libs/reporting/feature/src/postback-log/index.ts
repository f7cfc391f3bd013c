export * from './postback-log-store';
export * from './duckdb-postback-log-store';
export * from './clickhouse-postback-log-store';
export * from './open-postback-log';
export * from './postback-log.message.controller';
