// The store's updates: hit states committed with the rows of the jobs that changed them, hits deleted, each job's rows recorded once.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Hit, HitFilter } from '@funnel/reporting-domain';
import { writingTo } from '@funnel/eventstore';
import { HIT_COLUMN_VALUES } from '../../hit-row';
import { UPDATED_FIELDS, type AppliedRow, type HitState, type JobWrites, type UpdatedField } from '../../hit-store';
import { HIT_WAREHOUSE } from '../duckdb-instances';
import { ChunkWriter } from '../hit-chunk';
import type { HitKeyIndex } from '../hit-key-index';
import type { RecordedRowIndexes } from '../recorded-row-indexes';
import { timeRanges, timeRangesSql } from '../time-ranges';
import type { WarehouseConnections } from './connections';
import { hitFilterSql, recordedRowsOfJobs } from './sql';
import { HIT_SEQ, STAGINGS, stagingKey } from './tables';

/** The fields any of the jobs stores (a job without `fields` stores all). */
function updatedFieldsOf(jobs: readonly JobWrites[]): ReadonlySet<UpdatedField> {
  const fields = new Set<UpdatedField>();
  for (const job of jobs) for (const field of job.fields ?? UPDATED_FIELDS) fields.add(field);
  return fields;
}

/** The updates of a store: each a transaction of its own on its writer (see WarehouseConnections.exclusive). */
export class HitUpdates {
  /** Fill the data chunks of hit states staged for an update (by one write at a time), by staging table (see STAGINGS). */
  private readonly stagedChunks = new Map([...STAGINGS].map(([key, staging]) => [key, new ChunkWriter(staging.columns)]));
  private readonly writer: DuckDBConnection;

  constructor(
    private readonly connections: WarehouseConnections,
    private readonly index: HitKeyIndex,
    private readonly recordedIndexes: RecordedRowIndexes,
  ) {
    this.writer = connections.writer;
  }

  /** One transaction: the hits' last states with one UPDATE, each job's rows as one record. */
  async commitJobs(accountId: string, jobs: readonly JobWrites[]): Promise<void> {
    // The last state of a hit named twice wins.
    const latest = new Map<string, HitState>();
    for (const job of jobs) for (const hit of job.changed) if (hit.accountId === accountId) latest.set(hit.hitId, hit);
    if (latest.size === 0 && jobs.every((job) => job.rows.length === 0)) return;
    await this.recording(
      accountId,
      jobs.map((job) => job.jobId),
      async (record) => {
        if (latest.size > 0) await this.updateStates(accountId, [...latest.values()], updatedFieldsOf(jobs));
        for (const job of jobs) record(job.jobId, job.rows);
      },
    );
  }

  /**
   * Stages the new states of the hits located (by their sequence numbers, those the reads found
   * kept, the others from the hit-key index: a hit removed since it was read is left out) and writes
   * the columns of `fields` with one UPDATE (inside the caller's transaction).
   */
  private async updateStates(accountId: string, states: readonly HitState[], fields: ReadonlySet<UpdatedField>): Promise<void> {
    if (fields.size === 0) return;
    const key = stagingKey(fields);
    const { table, columns } = STAGINGS.get(key)!;
    const { found: located, missing } = this.connections.shared.places.get(
      accountId,
      states.map((hit) => hit.hitId),
    );
    for (const [hitId, place] of this.index.locate(accountId, missing)) located.set(hitId, place);
    const hits = states.filter((hit) => located.has(hit.hitId));
    if (hits.length === 0) return;
    const places = hits.map((hit) => located.get(hit.hitId)!);
    const appender = await this.writer.createAppender(table, 'main', 'temp');
    try {
      // Column by column into one reused data chunk.
      this.stagedChunks
        .get(key)!
        .append(appender, hits as unknown as Hit[], (column) => (column === HIT_SEQ.name ? (_, i) => places[i].seq : HIT_COLUMN_VALUES[column]));
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    // Bounded by the spans of the hits' times (see timeRanges): DuckDB reads only the row groups holding them.
    const spans = timeRangesSql('hits.time_ms', timeRanges(places.map((place) => place.timeMs)), 2);
    const updated = columns.filter((column) => column !== HIT_SEQ).map((column) => `${column.name} = s.${column.name}`);
    await this.writer.run(
      `UPDATE hits SET ${updated.join(', ')}
         FROM temp.${table} s
         WHERE hits.account_id = $1 AND ${spans.sql} AND hits.${HIT_SEQ.name} = s.${HIT_SEQ.name}`,
      [accountId, ...spans.params],
    );
    await this.writer.run(`DELETE FROM temp.${table}`);
  }

  async deleteHits(accountId: string, jobId: string, rowIndex: number, filter: HitFilter): Promise<AppliedRow> {
    const { row, removed } = await this.recording(accountId, [jobId], async (record) => {
      const recorded = (await recordedRowsOfJobs(this.writer, accountId, [jobId])).get(jobId)?.find((entry) => entry.rowIndex === rowIndex);
      if (recorded) return { row: recorded, removed: [] as string[] };
      const sql = hitFilterSql(accountId, filter);
      const reader = await this.writer.runAndReadAll(`DELETE FROM hits WHERE ${sql.where.join(' AND ')} RETURNING hit_id`, sql.params);
      const ids = reader.getRows().map((values) => String(values[0]));
      const applied: AppliedRow = { rowIndex, outcome: ids.length > 0 ? 'applied' : 'noop', hits: ids.length, postbacks: [] };
      record(jobId, [applied]);
      return { row: applied, removed: ids };
    });
    // After the commit: a crash before this line leaves keys without hits, which lookups skip.
    if (removed.length > 0) this.connections.shared.places.removed(accountId);
    writingTo(HIT_WAREHOUSE, () => this.index.delete(accountId, removed));
    return row;
  }

  /**
   * A transaction of its own that records rows of jobs among `jobIds` (`work` calls `record` for
   * them; the records are written after `work`, in the same transaction), after the writes before
   * it: RecordedRowIndexes learns the rows once they are committed, or forgets the jobs when the
   * transaction failed.
   */
  private recording<T>(
    accountId: string,
    jobIds: readonly string[],
    work: (record: (jobId: string, rows: readonly AppliedRow[]) => void) => Promise<T>,
  ): Promise<T> {
    return this.connections.exclusive(async () => {
      const pending = new Map<string, AppliedRow[]>();
      let recorded = new Map<string, { fresh: number[]; known?: number[] }>();
      let result: T;
      try {
        result = await this.connections.inTransaction(async () => {
          const value = await work((jobId, rows) => pending.set(jobId, [...(pending.get(jobId) ?? []), ...rows]));
          recorded = await this.recordRows(accountId, pending);
          return value;
        });
      } catch (error) {
        for (const jobId of jobIds) this.recordedIndexes.forget(accountId, jobId);
        throw error;
      }
      for (const [jobId, { fresh, known }] of recorded) this.recordedIndexes.recorded(accountId, jobId, fresh, known);
      return result;
    });
  }

  /**
   * One record per job of its rows, leaving out rows recorded before (inside the caller's
   * transaction): those RecordedRowIndexes holds for the job, else those the job's records hold
   * (`known`, read here, for every such job at once). Answers the indexes recorded now, by job.
   */
  private async recordRows(accountId: string, pending: Map<string, AppliedRow[]>): Promise<Map<string, { fresh: number[]; known?: number[] }>> {
    const result = new Map<string, { fresh: number[]; known?: number[] }>();
    const jobs = [...pending].filter(([, rows]) => rows.length > 0);
    if (jobs.length === 0) return result;
    const unheld = jobs.map(([jobId]) => jobId).filter((jobId) => !this.recordedIndexes.get(accountId, jobId));
    const read = unheld.length > 0 ? await recordedRowsOfJobs(this.writer, accountId, unheld) : new Map<string, AppliedRow[]>();
    const records: { jobId: string; firstRow: number; rows: string }[] = [];
    for (const [jobId, rows] of jobs) {
      const held = this.recordedIndexes.get(accountId, jobId);
      const known = held ? undefined : (read.get(jobId) ?? []).map((row) => row.rowIndex);
      const recorded = held ?? new Set(known);
      const fresh = rows.filter((row) => !recorded.has(row.rowIndex));
      result.set(jobId, { fresh: fresh.map((row) => row.rowIndex), known });
      if (fresh.length > 0) records.push({ jobId, firstRow: Math.min(...fresh.map((row) => row.rowIndex)), rows: JSON.stringify(fresh) });
    }
    if (records.length > 0) {
      // Appended (no statement to plan), in job_batches' column order.
      const appender = await this.writer.createAppender('job_batches');
      try {
        for (const record of records) {
          appender.appendVarchar(accountId);
          appender.appendVarchar(record.jobId);
          appender.appendInteger(record.firstRow);
          appender.appendVarchar(record.rows);
          appender.endRow();
        }
        appender.flushSync();
      } finally {
        appender.closeSync();
      }
    }
    return result;
  }
}
