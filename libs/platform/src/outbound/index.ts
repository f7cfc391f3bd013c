export * from './address-policy';
export * from './guarded-lookup';
export * from './http-headers';
export * from './outbound-http';
export * from './standard-webhooks';
export * from './webhook-delivery';
export * from './middleware-call';
