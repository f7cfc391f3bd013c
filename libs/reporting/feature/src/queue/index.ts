export * from './job-queue';
export { DEFAULT_ACK_WAIT_MS, DEFAULT_BACKOFF_MS, DEFAULT_DEDUPE_WINDOW_MS, DEFAULT_MAX_ATTEMPTS, LeaseExpiredError } from './job-delivery';
export * from './embedded-job-queue';
export { describeJobQueueContract, type ContractPayload, type JobQueueContractBackend } from './job-queue.contract';
export * from './jetstream-job-queue';
export * from './job-queue-baseline';
