export * from './job-record';
export * from './postback-record';
