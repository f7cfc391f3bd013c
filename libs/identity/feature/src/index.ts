export * from './identity-feature.module';
export * from './identity.service';
export * from './auth';
