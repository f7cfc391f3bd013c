export * from './postback-relay';
