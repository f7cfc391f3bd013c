export * from './passwords';
export * from './api-keys';
export * from './identity-events';
export * from './user-settings';
export * from './api-key-events';
export * from './api-key-decider';
