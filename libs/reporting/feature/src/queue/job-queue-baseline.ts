import { randomUUID } from 'node:crypto';
import type { JobQueue } from './job-queue';

export interface RawJobsOptions {
  /** Jobs to append, one `enqueue` call each (as the service does for each accepted request). */
  count: number;
  /** The payload of every job: a text of this many bytes (ASCII), or this exact text. */
  payload: number | string;
  /** Enqueue calls in flight at once (default 1), like concurrent requests. */
  parallel?: number;
  type?: string;
  accountId?: string;
}

export interface RawJobsResult {
  jobs: number;
  /** Payload bytes appended. */
  bytes: number;
  elapsedMs: number;
}

/**
 * The bench's baseline: appends the same bytes the service would queue straight to a queue, with
 * no HTTP, validation or job bookkeeping, and says how long that took.
 */
export async function appendRawJobs(queue: JobQueue<string>, options: RawJobsOptions): Promise<RawJobsResult> {
  const payload = typeof options.payload === 'string' ? options.payload : 'x'.repeat(options.payload);
  const run = randomUUID();
  const type = options.type ?? 'baseline';
  const accountId = options.accountId ?? 'baseline';
  let next = 0;
  const worker = async () => {
    while (next < options.count) {
      const i = next++;
      await queue.enqueue([{ jobId: `${run}-${i}`, type, accountId, payload, queuedAt: new Date().toISOString() }]);
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: Math.max(1, options.parallel ?? 1) }, worker));
  return { jobs: options.count, bytes: options.count * Buffer.byteLength(payload), elapsedMs: performance.now() - started };
}
