export * from './projection-runner';
export * from './guarded-write';
export * from './projection-lag';
export * from './projector';
