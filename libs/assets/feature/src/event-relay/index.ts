export * from './asset-event-message';
export * from './asset-event-relay';
export * from './relay-lease';
