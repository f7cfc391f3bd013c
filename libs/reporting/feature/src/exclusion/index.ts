export * from './account-exclusion';
export * from './jetstream-account-exclusion';
