export * from './gateway.module';
export * from './create-gateway-app';
export * from './route-table';
export * from './http-errors';
export * from './api-key-authenticator';
export * from './token-verifier';
export * from './credentials';
export * from './identity-routes';
