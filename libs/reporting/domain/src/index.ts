export * from './hit';
export * from './hit-filters';
export * from './postbacks/postback-intent';
