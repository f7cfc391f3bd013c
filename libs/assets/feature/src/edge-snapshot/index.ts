export * from './edge-snapshot.query';
export * from './edge-snapshot.message.controller';
export * from './middleware-secrets.query';
export * from './middleware-secrets.message.controller';
