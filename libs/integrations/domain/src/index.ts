export * from './ad-platform';
export * from './integration';
export * from './authorization';
export * from './cost-sync';
