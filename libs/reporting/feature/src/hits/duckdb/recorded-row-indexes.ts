/** Jobs whose recorded row indexes are kept (the least recently used are forgotten first). */
const KEPT_JOBS = 1024;

/**
 * The indexes of the rows each job has recorded in `job_batches`, kept for the jobs applied lately so
 * that recording a batch does not read the job's records again (the appliers read them once, when a
 * job starts). Exact for every job it holds: every write of `job_batches` goes through the store's
 * writer, one at a time, and reports here once committed (`recorded`), or drops the job when its
 * transaction failed (`forget`). A read on another connection (`appliedRows`) is kept only when no
 * write was committed while it ran (`remember`): a write committed before its snapshot was counted,
 * one committed after it adds its rows to the entry the read left.
 */
export class RecordedRowIndexes {
  private readonly jobs = new Map<string, Set<number>>();
  private writes = 0;

  /** Counts committed writes of job_batches: pass it to `remember` with the read started after it. */
  get generation(): number {
    return this.writes;
  }

  /** The job's recorded row indexes, when held. */
  get(accountId: string, jobId: string): ReadonlySet<number> | undefined {
    const key = keyOf(accountId, jobId);
    const indexes = this.jobs.get(key);
    if (indexes) this.touch(key, indexes);
    return indexes;
  }

  /** Keeps the indexes a read found, when no write was committed since `generation` (the read's start). */
  remember(accountId: string, jobId: string, indexes: Iterable<number>, generation: number): void {
    const key = keyOf(accountId, jobId);
    if (generation !== this.writes || this.jobs.has(key)) return;
    this.touch(key, new Set(indexes));
  }

  /**
   * A committed write of the job's rows: `indexes` are its recorded rows, `known` all the job had before
   * it (read by the writer inside that write), for a job not held yet.
   */
  recorded(accountId: string, jobId: string, indexes: Iterable<number>, known?: Iterable<number>): void {
    this.writes += 1;
    const key = keyOf(accountId, jobId);
    const held = this.jobs.get(key) ?? (known ? new Set(known) : undefined);
    if (!held) return;
    for (const index of indexes) held.add(index);
    this.touch(key, held);
  }

  /** A write of the job's rows that failed: what it left is not known. */
  forget(accountId: string, jobId: string): void {
    this.writes += 1;
    this.jobs.delete(keyOf(accountId, jobId));
  }

  private touch(key: string, indexes: Set<number>): void {
    this.jobs.delete(key);
    this.jobs.set(key, indexes);
    if (this.jobs.size > KEPT_JOBS) this.jobs.delete(this.jobs.keys().next().value!);
  }
}

function keyOf(accountId: string, jobId: string): string {
  return `${accountId}\u0000${jobId}`;
}
