export * from './scripts-feature.module';
