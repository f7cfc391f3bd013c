export * from './chdb-client';
export * from './clickhouse-suite';
