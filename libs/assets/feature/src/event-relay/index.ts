export * from './asset-event-message';
export * from './asset-event-relay';
export * from './jetstream-pipeline';
export * from './relay-lease';
