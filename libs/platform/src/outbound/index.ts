export * from './address-policy';
export * from './guarded-lookup';
export * from './outbound-http';
