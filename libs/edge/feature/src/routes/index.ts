export * from './edge-routes-config';
export * from './edge-route-metrics';
export * from './visitor-pages';
export * from './visitor-links';
export * from './edge-http-app';
export * from './tracking-edge';
