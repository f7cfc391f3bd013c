export * from './passwords';
export * from './api-keys';
export * from './identity-events';
