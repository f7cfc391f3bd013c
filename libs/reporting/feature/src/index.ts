export * from './service';
export * from './queue';
export * from './hits/hit-store';
export * from './hits/sqlite-hit-store';
export * from './hits/clickhouse-hit-store';
export * from './hits/create-hit-store';
