export * from './asset-events';
export * from './asset-decider';
export * from './children-cascade';
export * from './duplicate';
export * from './asset-registry';
export * from './kinds';
export * from './secret-fields';
export * from './record-changes';
