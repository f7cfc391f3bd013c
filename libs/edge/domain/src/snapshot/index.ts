export * from './positions';
export * from './asset-snapshot-state';
export * from './funnel-assets';
export * from './compiled-funnels';
export * from './domain-directory';
