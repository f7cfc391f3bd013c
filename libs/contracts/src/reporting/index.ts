export * from './subjects';
export * from './jobs';
export * from './updates';
export * from './validate';
export * from './docs';
export * from './queries';
export * from './queries-dto';
export * from './incoming-postbacks';
