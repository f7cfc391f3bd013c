export * from './edge-snapshot';
export * from './asset-event-feeds';
export * from './snapshot-sources';
export * from './snapshot-metrics';
export * from './snapshot-config';
