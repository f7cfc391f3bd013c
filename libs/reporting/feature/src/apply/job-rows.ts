import type { AppliedRow, HitStore } from '../hits/hit-store';
import { ApplyResult, JobCounts, MAX_JOB_ERRORS, ROW_ERROR_CODES, RowError } from './apply-types';

/** The rows of a job already recorded by an earlier delivery, by index. */
export async function recordedRows(store: HitStore, accountId: string, jobId: string): Promise<Map<number, AppliedRow>> {
  return new Map((await store.appliedRows(accountId, jobId)).map((row) => [row.rowIndex, row]));
}

/** Indexes 0..count-1 not recorded yet, in batches of `size`. */
export function pendingBatches(count: number, recorded: Map<number, AppliedRow>, size: number): number[][] {
  const batches: number[][] = [];
  let batch: number[] = [];
  for (let index = 0; index < count; index++) {
    if (recorded.has(index)) continue;
    batch.push(index);
    if (batch.length === size) {
      batches.push(batch);
      batch = [];
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Adds up a job's rows (recorded by earlier deliveries and applied now alike) into its result, so a
 * redelivered job reports the same counts, errors and postbacks as a single delivery would have.
 */
export function summarize(rows: Iterable<AppliedRow>, hitIdOf: (rowIndex: number) => string | undefined): ApplyResult {
  const sorted = [...rows].sort((a, b) => a.rowIndex - b.rowIndex);
  const counts: JobCounts = { rows: sorted.length, applied: 0, noop: 0, notFound: 0, failed: 0 };
  const errors: RowError[] = [];
  let hits = 0;
  for (const row of sorted) {
    counts[row.outcome]++;
    hits += row.hits;
    if ((row.outcome === 'notFound' || row.outcome === 'failed') && errors.length < MAX_JOB_ERRORS) {
      const hitId = hitIdOf(row.rowIndex);
      errors.push({
        rowIndex: row.rowIndex,
        ...(hitId !== undefined ? { hitId } : {}),
        code: ROW_ERROR_CODES[row.outcome],
        message: row.outcome === 'notFound' ? 'no hit with this hitId in the account' : (row.error ?? 'the row could not be applied'),
      });
    }
  }
  return { counts, errors, postbacks: sorted.flatMap((row) => row.postbacks), hits };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
