export * from './api-keys.service';
export * from './api-keys.message.controller';
export * from './api-key-authentication';
