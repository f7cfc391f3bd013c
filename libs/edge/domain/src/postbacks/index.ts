export * from './postback-params';
