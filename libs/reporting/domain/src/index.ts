export * from './hit';
