export * from './queue/job-queue';
export * from './hits/hit-store';
