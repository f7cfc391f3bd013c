export * from './config';
export * from './stores';
export * from './standalone';
export * from './services';
export * from './billing-config';
export * from './asset-events';
export * from './reporting-config';
export * from './hits-import';
