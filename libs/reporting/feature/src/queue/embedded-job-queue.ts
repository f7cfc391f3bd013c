import { SlicedText, SqliteWriterThread, openPrivateSqlite, writingTo, type SqliteDurability } from '@funnel/eventstore';
import Database from 'better-sqlite3';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { jsonInSlices } from './json-in-slices';
import { QueueFileOwner } from './queue-file-owner';
import {
  AccountChanges,
  QueueDelivery,
  assertEnqueueable,
  consumerSlots,
  keepAliveEvery,
  report,
  resolveQueueOptions,
  runDelivery,
  type DeliveryOutcome,
  type DeliverySlots,
  type ResolvedQueueOptions,
} from './job-delivery';
import type { JobConsumerOptions, JobDelivery, JobEnvelope, JobQueue, JobQueueOptions } from './job-queue';

export interface EmbeddedJobQueueOptions extends JobQueueOptions {
  /** The SQLite file (standalone mode: under DATA_DIR); created 0600 when absent. May hold other tables. */
  filename: string;
  /**
   * `normal` (default): WAL with synchronous=NORMAL, safe against process crashes, may lose the last
   * commits on power loss. `full`: fsync on every enqueue.
   */
  durability?: SqliteDurability;
  /**
   * Longest an idle consumer sleeps before looking again (default 1000): enqueues through this
   * instance wake it at once, and it wakes when the next lease or backoff ends; the timer catches
   * jobs enqueued through another connection to the file (another process, a CLI). Also the
   * longest a delivery in `untilFirstOfAccount` waits between two looks (the consuming process
   * removes every job itself and wakes it at once; the poll is a safety net).
   */
  pollIntervalMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;
/** An enqueue whose payloads add up to more than this many characters is written from a worker thread. */
const OFF_THREAD_ENQUEUE_CHARS = 256 * 1024;
/** Done rows older than the dedupe window are deleted at most this often. */
const PRUNE_INTERVAL_MS = 30_000;

/** Rows that may hold a lease of a version before the lease column: released when the column is added. */
const LEASE_COLUMN = 'leased_until_ms';

/** One job as the INSERT takes it: the payload already JSON text. */
interface EncodedJob {
  jobId: string;
  type: string;
  accountId: string;
  queuedAt: string;
  payload: string;
}

/** A job whose JSON payload is the concatenation of `pieces` (see jsonInSlices). */
type SlicedJob = Omit<EncodedJob, 'payload'> & { pieces: string[] };

type ClaimedRow = [seq: number, jobId: string, type: string, accountId: string, payload: string, queuedAt: string, attempts: number];

/**
 * Durable job queue in a SQLite file (WAL), one table per queue (`job_queue_<name>`).
 *
 * A row is a job: enqueueing is one INSERT (a job id seen within the dedupe window is refused by the
 * UNIQUE index). Taking a job is one UPDATE that counts the attempt and sets its lease
 * (`leased_until_ms`, and `available_ms` with it) to now + ackWaitMs, renewed every ackWaitMs / 3
 * while the handler runs; a failure clears the lease and moves `available_ms` to the end of the
 * backoff instead. A finished job keeps its row without payload until the dedupe window passed.
 *
 * One process consumes a file (QueueFileOwner: an OS-held lock beside it, dropped when the process
 * dies): a second process's `consume` is refused, and the process that takes the file releases the
 * leases it finds, left by a process that died mid-job, so those jobs run again at once rather than
 * after their lease. Any number of processes may enqueue.
 */
export class EmbeddedJobQueue<P = unknown> implements JobQueue<P> {
  private readonly options: ResolvedQueueOptions;
  private readonly pollIntervalMs: number;
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<unknown[]>;
  private readonly enqueueTransaction: Database.Transaction<(jobs: readonly EncodedJob[], now: number) => string[]>;
  /** Writes the large enqueues (the same INSERT, one transaction) from a worker thread: started on the first. */
  private readonly offThread: SqliteWriterThread | undefined;
  private readonly claim: Database.Statement<[number, number, number], ClaimedRow>;
  private readonly finish: Database.Statement<[number, number]>;
  private readonly postpone: Database.Statement<[number, number, number]>;
  private readonly renew: Database.Statement<[number, number, number, number]>;
  private readonly releaseLeases: Database.Statement<[number]>;
  private readonly countPending: Database.Statement<[], number>;
  private readonly earlierOfAccount: Database.Statement<[string, number], number>;
  private readonly betweenOfAccount: Database.Statement<[string, number, number], number>;
  /** The queue position (seq) of each delivery this queue handed out. */
  private readonly positions = new WeakMap<JobDelivery<unknown>, number>();
  private readonly nextAvailable: Database.Statement<[], number | null>;
  private readonly prune: Database.Statement<[number]>;
  private consumer: { handler: (delivery: JobDelivery<P>) => Promise<void>; options: JobConsumerOptions<P>; slots: DeliverySlots } | undefined;
  private readonly filename: string;
  private owner: QueueFileOwner | undefined;
  private readonly accountChanges = new AccountChanges();
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private wakeScheduled = false;
  private lastPruneMs = 0;
  private closing = false;
  private closed: Promise<void> | undefined;

  constructor(options: EmbeddedJobQueueOptions) {
    this.options = resolveQueueOptions(options);
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    this.filename = options.filename;
    this.db = openPrivateSqlite(options.filename, options.durability);

    const table = `"job_queue_${this.options.name}"`;
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS ${table} (
        seq          INTEGER PRIMARY KEY AUTOINCREMENT,
        job_id       TEXT    NOT NULL UNIQUE,
        type         TEXT    NOT NULL,
        account_id   TEXT    NOT NULL,
        queued_at    TEXT    NOT NULL,
        payload      TEXT,
        enqueued_ms  INTEGER NOT NULL,
        available_ms INTEGER NOT NULL,
        attempts     INTEGER NOT NULL DEFAULT 0,
        done_ms      INTEGER,
        ${LEASE_COLUMN} INTEGER
      );
      CREATE INDEX IF NOT EXISTS "job_queue_${this.options.name}_pending" ON ${table} (seq, available_ms) WHERE done_ms IS NULL;
      CREATE INDEX IF NOT EXISTS "job_queue_${this.options.name}_done" ON ${table} (enqueued_ms) WHERE done_ms IS NOT NULL;
      CREATE INDEX IF NOT EXISTS "job_queue_${this.options.name}_account" ON ${table} (account_id, seq) WHERE done_ms IS NULL;`);

    const columns = this.db.prepare(`SELECT name FROM pragma_table_info('job_queue_${this.options.name}')`).pluck().all() as string[];
    if (!columns.includes(LEASE_COLUMN)) {
      // A file of the version before the lease column: its leases cannot be told from backoffs, so
      // every job taken before is made available (a retry ahead of its backoff is harmless).
      this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${LEASE_COLUMN} INTEGER;
        UPDATE ${table} SET available_ms = 0 WHERE done_ms IS NULL AND attempts > 0;`);
    }

    // A finished job whose id left the dedupe window may be enqueued again: the conflicting row is reset.
    const insertSql = `INSERT INTO ${table} (job_id, type, account_id, queued_at, payload, enqueued_ms, available_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job_id) DO UPDATE SET
         type = excluded.type, account_id = excluded.account_id, queued_at = excluded.queued_at, payload = excluded.payload,
         enqueued_ms = excluded.enqueued_ms, available_ms = excluded.available_ms, attempts = 0, done_ms = NULL, ${LEASE_COLUMN} = NULL
       WHERE done_ms IS NOT NULL AND enqueued_ms < ?`;
    this.insert = this.db.prepare(insertSql);
    this.offThread =
      options.filename === ':memory:'
        ? undefined
        : new SqliteWriterThread({
            filename: options.filename,
            statements: { insert: insertSql },
            store: 'job queue',
            durability: options.durability,
            closedError: () => new Error(`job queue ${this.options.name} is closed`),
          });
    this.enqueueTransaction = this.db.transaction((jobs: readonly EncodedJob[], now: number) => {
      const windowStart = now - this.options.dedupeWindowMs;
      const duplicates: string[] = [];
      for (const job of jobs) {
        const { changes } = this.insert.run(job.jobId, job.type, job.accountId, job.queuedAt, job.payload, now, now, windowStart);
        if (changes === 0) duplicates.push(job.jobId);
      }
      return duplicates;
    });
    this.claim = this.db
      .prepare<[number, number, number], ClaimedRow>(
        `UPDATE ${table} SET attempts = attempts + 1, available_ms = ?, ${LEASE_COLUMN} = ?
         WHERE seq = (SELECT seq FROM ${table} WHERE done_ms IS NULL AND available_ms <= ? ORDER BY seq LIMIT 1)
         RETURNING seq, job_id, type, account_id, payload, queued_at, attempts`,
      )
      .raw();
    this.finish = this.db.prepare(`UPDATE ${table} SET done_ms = ?, payload = NULL, ${LEASE_COLUMN} = NULL WHERE seq = ? AND done_ms IS NULL`);
    // Only while the job still belongs to this delivery: after its lease ran out another one owns it.
    this.postpone = this.db.prepare(`UPDATE ${table} SET available_ms = ?, ${LEASE_COLUMN} = NULL WHERE seq = ? AND attempts = ? AND done_ms IS NULL`);
    // Renews the lease of a running (or waiting) delivery; the attempt is not counted again.
    this.renew = this.db.prepare(`UPDATE ${table} SET available_ms = ?, ${LEASE_COLUMN} = ? WHERE seq = ? AND attempts = ? AND done_ms IS NULL`);
    // Run by the process that takes the file: every lease in it belongs to a process that died.
    this.releaseLeases = this.db.prepare(`UPDATE ${table} SET available_ms = ?, ${LEASE_COLUMN} = NULL WHERE done_ms IS NULL AND ${LEASE_COLUMN} IS NOT NULL`);
    this.countPending = this.db.prepare<[], number>(`SELECT COUNT(*) FROM ${table} WHERE done_ms IS NULL`).pluck();
    this.earlierOfAccount = this.db
      .prepare<[string, number], number>(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE account_id = ? AND done_ms IS NULL AND seq < ?)`)
      .pluck();
    this.betweenOfAccount = this.db
      .prepare<[string, number, number], number>(`SELECT EXISTS (SELECT 1 FROM ${table} WHERE account_id = ? AND done_ms IS NULL AND seq > ? AND seq < ?)`)
      .pluck();
    this.nextAvailable = this.db.prepare<[], number | null>(`SELECT MIN(available_ms) FROM ${table} WHERE done_ms IS NULL`).pluck();
    this.prune = this.db.prepare(`DELETE FROM ${table} WHERE done_ms IS NOT NULL AND enqueued_ms < ?`);
  }

  async enqueue(jobs: readonly JobEnvelope<P>[]): Promise<{ duplicates: string[] }> {
    if (this.closing) throw new Error(`job queue ${this.options.name} is closed`);
    jobs.forEach(assertEnqueueable);
    // A payload of thousands of rows is stringified a slice at a time, the event loop running between.
    const sliced: SlicedJob[] = [];
    for (const { jobId, type, accountId, queuedAt, payload } of jobs) {
      sliced.push({ jobId, type, accountId, queuedAt, pieces: await jsonInSlices(payload, () => nextTurn()) });
    }
    const now = Date.now();
    const chars = sliced.reduce((sum, job) => sum + job.pieces.reduce((n, piece) => n + piece.length, 0), 0);
    // A multi-MB INSERT holds SQLite (and the thread calling it) for 50-100 ms: not on the event loop.
    // A full disk or read-only volume answers 507/503 (StorageUnavailableError), not a bare 500.
    const duplicates =
      this.offThread && chars > OFF_THREAD_ENQUEUE_CHARS
        ? await this.enqueueOffThread(this.offThread, sliced, now)
        : writingTo('job queue', () =>
            this.enqueueTransaction.immediate(
              sliced.map(({ pieces, ...job }): EncodedJob => ({ ...job, payload: pieces.join('') })),
              now,
            ),
          );
    if (duplicates.length < jobs.length) this.wakeSoon();
    return { duplicates };
  }

  /**
   * The jobs written by the writer thread, as enqueueTransaction does; the ids refused as duplicates.
   * The payloads cross to the thread a piece at a time, a turn of the event loop between two.
   */
  private async enqueueOffThread(thread: SqliteWriterThread, jobs: readonly SlicedJob[], now: number): Promise<string[]> {
    const windowStart = now - this.options.dedupeWindowMs;
    const rows = jobs.map((job) => [job.jobId, job.type, job.accountId, job.queuedAt, new SlicedText(job.pieces), now, now, windowStart]);
    const changes = await thread.runEach('insert', rows);
    return jobs.filter((_, i) => changes[i] === 0).map((job) => job.jobId);
  }

  async consume(handler: (delivery: JobDelivery<P>) => Promise<void>, options: JobConsumerOptions<P> = {}): Promise<void> {
    if (this.closing) throw new Error(`job queue ${this.options.name} is closed`);
    if (this.consumer) throw new Error(`job queue ${this.options.name} already has a consumer`);
    const slots = consumerSlots(options, () => this.wakeSoon());
    const owner = this.filename === ':memory:' ? undefined : QueueFileOwner.acquire(this.filename);
    if (owner?.firstConsumerOf(this.options.name)) this.releaseLeases.run(Date.now());
    this.owner = owner;
    this.consumer = { handler, options, slots };
    this.pump();
  }

  async depth(): Promise<number> {
    return this.countPending.get() ?? 0;
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      clearTimeout(this.timer);
      while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
      await this.offThread?.close();
      this.db.close();
      this.owner?.release();
    })();
    return this.closed;
  }

  /** Takes jobs while there are free slots, then sleeps until the next lease or backoff ends (or the poll interval). */
  private pump(): void {
    const consumer = this.consumer;
    if (!consumer || this.closing) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    try {
      while (consumer.slots.free(this.inFlight.size) > 0) {
        const now = Date.now();
        const row = this.claim.get(now + this.options.ackWaitMs, now + this.options.ackWaitMs, now);
        if (!row) break;
        this.start(row);
      }
      this.pruneNow();
      if (consumer.slots.free(this.inFlight.size) > 0) {
        const next = this.nextAvailable.get();
        const untilNext = next === null || next === undefined ? this.pollIntervalMs : Math.max(0, next - Date.now());
        this.timer = setTimeout(() => this.pump(), Math.min(untilNext, this.pollIntervalMs));
      }
    } catch (error) {
      // The file is busy beyond busy_timeout or failing: try again later.
      report(consumer.options, error);
      this.timer = setTimeout(() => this.pump(), this.pollIntervalMs);
    }
  }

  private start([seq, jobId, type, accountId, payload, queuedAt, attempt]: ClaimedRow): void {
    const consumer = this.consumer!;
    let delivery: QueueDelivery<P>;
    try {
      delivery = new QueueDelivery({ jobId, type, accountId, queuedAt, payload: JSON.parse(payload) as P }, attempt, {
        slots: consumer.slots,
        keepAlive: () => {
          const leaseEnd = Date.now() + this.options.ackWaitMs;
          this.renew.run(leaseEnd, leaseEnd, seq, attempt);
        },
        keepAliveEveryMs: keepAliveEvery(this.options),
        maxRunMs: this.options.maxRunMs,
        onError: (error) => report(consumer.options, error, delivery),
        isFirstOfAccount: async () => this.earlierOfAccount.get(accountId, seq) === 0,
        isNextOfAccountAfter: async (earlier) => {
          const after = this.positions.get(earlier);
          return after !== undefined && after < seq && earlier.job.accountId === accountId && this.betweenOfAccount.get(accountId, after, seq) === 0;
        },
        accountChanges: this.accountChanges,
        accountPollMs: this.pollIntervalMs,
      });
    } catch (error) {
      // Not written by this queue: nothing can ever handle it.
      report(consumer.options, error);
      this.finish.run(Date.now(), seq);
      return;
    }
    this.positions.set(delivery, seq);
    consumer.slots.take();
    const stopKeepingAlive = delivery.keepAlive();
    const running: Promise<void> = runDelivery(delivery, consumer.handler, consumer.options, this.options)
      .then((outcome) => this.settle(seq, attempt, outcome))
      .catch((error: unknown) => report(consumer.options, error, delivery))
      .finally(() => {
        stopKeepingAlive();
        this.inFlight.delete(running);
        consumer.slots.give();
        this.accountChanges.changed(accountId);
        this.pump();
      });
    this.inFlight.add(running);
  }

  private settle(seq: number, attempt: number, outcome: DeliveryOutcome): void {
    const now = Date.now();
    if (outcome.kind === 'retry') this.postpone.run(now + outcome.delayMs, seq, attempt);
    else this.finish.run(now, seq);
  }

  private pruneNow(): void {
    const now = Date.now();
    if (now - this.lastPruneMs < PRUNE_INTERVAL_MS) return;
    this.lastPruneMs = now;
    this.prune.run(now - this.options.dedupeWindowMs);
  }

  /** Enqueue returns first; the consumer takes the new jobs on the next turn of the event loop. */
  private wakeSoon(): void {
    if (!this.consumer || this.wakeScheduled) return;
    this.wakeScheduled = true;
    setImmediate(() => {
      this.wakeScheduled = false;
      this.pump();
    });
  }
}
