export * from './queue';
export * from './hits/hit-store';
export * from './reporting-feature.module';
export * from './reporting.message.controller';
export * from './service/reporting.tokens';
export * from './service/job-records';
export * from './service/traffic-sources';
