export * from './delivery-log-store';
export * from './delivery-log-sql';
export * from './duckdb-delivery-log-store';
export * from './clickhouse-delivery-log-store';
export * from './open-delivery-log';
export * from './delivery-log.message.controller';
