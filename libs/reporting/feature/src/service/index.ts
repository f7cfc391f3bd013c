export * from '../reporting-feature.module';
export * from '../reporting.message.controller';
export * from './reporting.tokens';
export * from './job-records';
export * from './traffic-sources';
export * from './apply-update';
export * from './update-worker';
export * from './reporting-updates';
