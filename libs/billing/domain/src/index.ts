export * from './domains/domain-name';
export * from './domains/domain-status';
export * from './domains/custom-domain';
export * from './subscription/catalog';
export * from './subscription/proration';
export * from './subscription/subscription';
export * from './idempotency';
