export * from './queue';
export * from './hits/hit-store';
