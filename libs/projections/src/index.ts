export * from './projection-runner';
export * from './guarded-write';
