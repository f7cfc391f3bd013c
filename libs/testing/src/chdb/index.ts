export * from './chdb-client';
