export * from './ad-platform';
export * from './integration';
export * from './authorization';
