export * from './hit';
export * from './jobs';
