export * from './errors';
export * from './context';
export * from './ids';
