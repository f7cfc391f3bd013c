// The DTOs' class-transformer decorators read design-time metadata: whoever imports the contracts gets it.
import 'reflect-metadata';
export * from './errors';
export * from './context';
export * from './ids';
export * from './validation';
export * from './assets';
export * from './identity';
export * from './scripts';
export * from './error-text';
export * from './billing';
export * from './billing/docs';
export * from './serialized-json';
export * from './reporting';
export * from './idempotency';
export * from './edge';
export * from './integrations';
