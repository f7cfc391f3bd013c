import type { EntranceQuery, HitFilter } from '@funnel/reporting-domain';
import type { AppliedRow, HitState, HitStore, JobStore, JobWrites, StateRead, UpdatedField } from '../hits/hit-store';

/**
 * The hit store as a group of consecutive jobs of one account sees it while they are applied
 * together (`applyJobGroup`): the jobs' recorded rows and their hits' states are read once for the
 * whole group (`prefetch`), each job's `commitRows` is held, in memory, and seen by the jobs after it,
 * and `commit` writes every job's changes and rows with one `commitJobs` of the store. Nothing is
 * written before `commit`: a group that fails half-way leaves the store as it was.
 *
 * Grouped jobs read and change hits by id only: the reads and writes by filter (cost, reset) are
 * refused, those jobs are applied on their own.
 */
export class JobGroupStore implements JobStore {
  private readonly recorded = new Map<string, AppliedRow[]>();
  /** The states read or written in the group, by hit id; null: read, not stored. */
  private readonly states = new Map<string, HitState | null>();
  private readonly writes: JobWrites[] = [];

  constructor(
    private readonly store: HitStore,
    private readonly accountId: string,
  ) {}

  /** Reads the jobs' recorded rows and the hits' states at once. */
  async prefetch(jobIds: readonly string[], hitIds: readonly string[]): Promise<void> {
    const [recorded] = await Promise.all([this.store.appliedRowsOfJobs(this.accountId, jobIds), this.readStates(hitIds)]);
    for (const jobId of jobIds) this.recorded.set(jobId, recorded.get(jobId) ?? []);
  }

  async appliedRows(accountId: string, jobId: string): Promise<AppliedRow[]> {
    this.checkAccount(accountId);
    const held = this.recorded.get(jobId) ?? (await this.store.appliedRows(accountId, jobId));
    const written = this.writes.filter((job) => job.jobId === jobId).flatMap((job) => job.rows);
    const rows = new Map([...held, ...written].map((row) => [row.rowIndex, row]));
    return [...rows.values()].sort((a, b) => a.rowIndex - b.rowIndex);
  }

  /** Whole states (the group reads once for all its jobs), whatever `_read` leaves out. */
  async getHitStates(accountId: string, hitIds: readonly string[], _read?: StateRead): Promise<HitState[]> {
    this.checkAccount(accountId);
    await this.readStates(hitIds);
    const states: HitState[] = [];
    for (const hitId of new Set(hitIds)) {
      const state = this.states.get(hitId);
      if (state) states.push(state);
    }
    return states;
  }

  async commitRows(
    accountId: string,
    jobId: string,
    changed: readonly HitState[],
    rows: readonly AppliedRow[],
    fields?: readonly UpdatedField[],
  ): Promise<void> {
    this.checkAccount(accountId);
    const mine = changed.filter((hit) => hit.accountId === accountId);
    // The states are whole (read so): the next jobs of the group see them as they are.
    this.writes.push({ jobId, changed: mine, rows, fields });
    for (const hit of mine) this.states.set(hit.hitId, hit);
  }

  findEntrances(_accountId: string, _query: EntranceQuery): Promise<never> {
    return Promise.reject(new Error('a job of a group reads hits by id only'));
  }

  countHits(_accountId: string, _filter: HitFilter): Promise<never> {
    return Promise.reject(new Error('a job of a group reads hits by id only'));
  }

  deleteHits(): Promise<never> {
    return Promise.reject(new Error('a job of a group changes hits by id only'));
  }

  /** Writes every job's changes and rows, in order, with one `commitJobs`. */
  async commit(): Promise<void> {
    if (this.writes.length > 0) await this.store.commitJobs(this.accountId, this.writes);
  }

  /** Reads the states of the hits not read or written in the group yet. */
  private async readStates(hitIds: readonly string[]): Promise<void> {
    const unread = [...new Set(hitIds)].filter((hitId) => !this.states.has(hitId));
    if (unread.length === 0) return;
    const read = await this.store.getHitStates(this.accountId, unread);
    // A state written meanwhile (a job of the group) stands over the read.
    for (const hitId of unread) if (!this.states.has(hitId)) this.states.set(hitId, null);
    for (const state of read) if (this.states.get(state.hitId) === null) this.states.set(state.hitId, state);
  }

  private checkAccount(accountId: string): void {
    if (accountId !== this.accountId) throw new Error(`a group of account ${this.accountId} was asked for account ${accountId}`);
  }
}
