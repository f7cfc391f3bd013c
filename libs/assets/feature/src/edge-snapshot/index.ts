export * from './edge-snapshot.query';
export * from './edge-snapshot.message.controller';
