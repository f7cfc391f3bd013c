export * from './origin-limiter';
export * from './middleware-secrets';
export * from './edge-middleware';
export * from './edge-middleware-config';
