export * from './auth.module';
export * from './auth.service';
export * from './auth.message.controller';
export * from './identity-keys';
export * from './refresh-tokens';
