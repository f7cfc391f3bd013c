export * from './errors';
export * from './context';
export * from './ids';
export * from './validation';
export * from './assets';
export * from './identity';
export * from './scripts';
export * from './error-text';
