// The ingest transaction left open on the writer and its log: rows appended and logged, committed (beside later ingests when full), abandoned and replayed.
import { listValue, type DuckDBAppender, type DuckDBConnection } from '@duckdb/node-api';
import { tightenFile, writingTo } from '@funnel/eventstore';
import type { Hit } from '@funnel/reporting-domain';
import { HIT_WAREHOUSE, storageErrorOfDuckDb } from '../duckdb-instances';
import type { ChunkWriter } from '../hit-chunk';
import type { LoggedClicks } from '../ingest-log';
import { runOnWorkers } from '../run-on-workers';
import type { SharedWriter, WarehouseConnections } from './connections';

/**
 * Ingested hits committed together: one DuckDB row group. DuckDB writes the full row groups of a
 * transaction straight into the file, compressed, instead of logging their rows in its WAL and
 * compressing them again at the checkpoint: about 3x less of DuckDB's time per hit than commits of
 * 1,000-20,000 hits.
 */
export const INGEST_COMMIT_ROWS = 122_880;
/** The most ingested rows the ingest transaction's appender holds before they are moved into the transaction (see OpenIngest). */
const INGEST_FLUSH_ROWS = 16_384;
/**
 * The rows of the entries logged during a commit that a write appends to the next ingest transaction
 * at most (see `applyUnapplied`): the catch-up after a commit is spread over the writes, 10-20 ms
 * each, rather than holding the event loop for all of it (75-130 ms after a row group of the edge's load).
 */
const CATCH_UP_ROWS = 4_096;
/**
 * When no read or other write asks for them first, ingested hits are committed once no ingest came
 * for INGEST_IDLE_MS, and INGEST_COMMIT_MS after the first at the latest (a steady trickle).
 */
export const INGEST_IDLE_MS = 1_000;
export const INGEST_COMMIT_MS = 30_000;
/** `warehouse_meta` key of the last ingest log entry committed in DuckDB. */
const INGEST_LOG_KEY = 'ingest_log_committed';

/** The ingest transaction open on a writer (`writer`, of the store that began it): its appender to `hits`, the rows appended, the last log entry it holds. */
export interface OpenIngest {
  writer: DuckDBConnection;
  appender: DuckDBAppender;
  rows: number;
  /** The rows its appender holds, not yet in the transaction (flushed by INGEST_FLUSH_ROWS: each flush costs DuckDB about 2 ms however few the rows). */
  unflushedRows: number;
  /**
   * The ids of the hits it holds, by account (at most INGEST_COMMIT_ROWS and one group): an ingest's
   * dedupe finds them here and reads DuckDB only for ids committed before (a batch sent again before
   * the commit reads nothing).
   */
  ids: Map<string, Set<string>>;
  lastLogged: number;
  /** The clicks counted on hits stored before, by account and hit: written when it commits (see `applyIngest`). */
  clicks: Map<string, Map<string, { n: number; timeMs: number }>>;
  /** When it began, and the timer of its commit (see INGEST_IDLE_MS). */
  began: number;
  timer: NodeJS.Timeout;
}

/**
 * The file's ingest transaction (see SharedWriter) as a store writes it: begun on the store's writer
 * when none is open, its rows logged before they are answered, committed by the row group (beside
 * the ingests after it), once idle, or before any other read or write, and replayed from the log
 * after a crash or a failed write.
 */
export class IngestTransaction {
  private readonly writer: DuckDBConnection;
  private readonly shared: SharedWriter;

  constructor(
    private readonly connections: WarehouseConnections,
    /** Lays out and appends the rows (shared with the store's ingest, which packs them). */
    private readonly hitsChunks: ChunkWriter,
    private readonly filename: string,
    /** The rows at which the ingest transaction is committed (INGEST_COMMIT_ROWS but in specs). */
    private readonly commitRows: number,
  ) {
    this.writer = connections.writer;
    this.shared = connections.shared;
  }

  /** The file's ingest transaction (see SharedWriter). */
  private get ingest(): OpenIngest | undefined {
    return this.shared.ingest;
  }
  private set ingest(ingest: OpenIngest | undefined) {
    this.shared.ingest = ingest;
  }
  private get logCommitted(): number {
    return this.shared.logCommitted;
  }
  private set logCommitted(id: number) {
    this.shared.logCommitted = id;
  }
  private get logBehind(): boolean {
    return this.shared.logBehind;
  }
  private set logBehind(behind: boolean) {
    this.shared.logBehind = behind;
  }

  /**
   * Before a write of the store's: the entries a failed write lost are written again, and another
   * store's ingest transaction is committed (the ids read on this store's writer then include them).
   */
  async beforeWrite(): Promise<void> {
    if (this.logBehind) await this.replayIngestLog();
    if (this.ingest && this.ingest.writer !== this.writer) await this.commitIngest();
  }

  /** The ids the ingest holds, not committed yet, of the account's hits: of the open transaction, of the one committing, and logged meanwhile. */
  heldIds(accountId: string): Set<string>[] {
    const { committing, unapplied } = this.shared;
    return [this.ingest?.ids, committing?.ids, unapplied].map((ids) => ids?.get(accountId)).filter((ids) => ids !== undefined);
  }

  /** Resolves once a full transaction's commit under way (if any) is done. */
  async committed(): Promise<void> {
    await this.shared.committing?.done;
  }

  /**
   * Writes an ingest's rows and clicks into the ingest transaction, then logs them after `index` (the
   * rows' keys and visitor days, committed to SQLite before the entry is written): the hits are
   * durable once this resolves. The caller holds `queued`. When the write or the log fails, the
   * transaction is rolled back and the entries logged before are written again (this ingest's are
   * not stored: it fails).
   */
  async write(rows: Buffer, hits: readonly Hit[], clicks: readonly LoggedClicks[], index: () => void): Promise<void> {
    if (this.shared.committing || this.shared.unapplied) {
      // Behind the entries logged during a commit: logged too (answered then), and a slice of them
      // appended (a failure there leaves them to the next write, which writes again what DuckDB lacks).
      this.logOnly(rows, hits, clicks, index);
      if (!this.shared.committing) await this.applyUnapplied(CATCH_UP_ROWS).catch(() => undefined);
      this.commitIfFull();
      return;
    }
    try {
      const ingest = await this.openIngest();
      await this.applyIngest(ingest, rows, clicks);
      writingTo(HIT_WAREHOUSE, index);
      ingest.lastLogged = this.shared.log.append(rows, clicks);
      clearTimeout(ingest.timer);
      ingest.timer = this.commitTimer(ingest.began);
      addIds(ingest.ids, hits);
      if (ingest.unflushedRows >= INGEST_FLUSH_ROWS) this.flushIngest(ingest);
    } catch (error) {
      await this.abandonIngest();
      await this.replayIngestLog().catch(() => undefined);
      throw storageErrorOfDuckDb(error) ?? error;
    }
    this.commitIfFull();
  }

  /** Commits the ingest transaction once it holds `commitRows` rows (see `commitInBackground`). */
  private commitIfFull(): void {
    if (this.ingest && this.ingest.rows >= this.commitRows) this.commitInBackground(this.ingest);
  }

  /**
   * An ingest while a full transaction commits (see `commitInBackground`), or while the entries
   * logged meanwhile are appended after it: its keys and visitor days committed to SQLite, its rows
   * and clicks logged, nothing written to DuckDB here; its entry is appended to the next ingest
   * transaction in its turn (`applyUnapplied`).
   */
  private logOnly(rows: Buffer, hits: readonly Hit[], clicks: readonly LoggedClicks[], index: () => void): void {
    writingTo(HIT_WAREHOUSE, index);
    this.shared.log.append(rows, clicks);
    const unapplied = (this.shared.unapplied ??= new Map());
    addIds(unapplied, hits);
  }

  /**
   * Commits a full ingest transaction (INGEST_COMMIT_ROWS: a row group compressed and written, 0.1-0.5 s
   * on DuckDB's worker) without holding up the ingests after it: they are logged meanwhile (`logOnly`,
   * into the log's other file, so each file empties as DuckDB takes its entries), and written into the
   * next ingest transaction once the commit is done, by the next write or at once. Reads and other
   * writes wait for it (`settle`). A failed commit leaves everything in the log, written again
   * before the next write, as after any failed write.
   */
  private commitInBackground(ingest: OpenIngest): void {
    this.ingest = undefined;
    this.shared.log.rotate();
    const done = this.commitIngest(ingest)
      .catch(() => undefined)
      .then(() => {
        this.shared.committing = undefined;
        this.catchUp();
      });
    this.shared.committing = { ids: ingest.ids, done };
  }

  /** Appends the entries logged during a commit, a slice per write after the writes queued before it, until none is left. */
  private catchUp(): void {
    if (!this.shared.unapplied || this.shared.committing || this.logBehind) return;
    void this.connections
      .queued(async () => {
        // A turn of the event loop between slices: the visitor routes' other work goes on meanwhile.
        await new Promise((resolve) => setImmediate(resolve));
        await this.applyUnapplied(CATCH_UP_ROWS);
        this.commitIfFull();
        this.catchUp();
      })
      .catch(() => undefined);
  }

  /**
   * Appends entries logged while a commit was under way (see `logOnly`), in order, to the ingest
   * transaction (not committed: they are logged): at least `rows` rows of them when there are that
   * many (all by default). The caller holds the writer. When that fails, the transaction is rolled
   * back and every entry DuckDB lacks is written again before the next write.
   */
  private async applyUnapplied(rows = Infinity): Promise<void> {
    const unapplied = this.shared.unapplied;
    if (!unapplied || this.shared.committing || this.logBehind) return;
    try {
      const ingest = await this.openIngest();
      const all = await this.appendLogged(ingest, rows);
      if (ingest.unflushedRows >= INGEST_FLUSH_ROWS) this.flushIngest(ingest);
      clearTimeout(ingest.timer);
      ingest.timer = this.commitTimer(ingest.began);
      if (!all) return;
      // All appended: their ids are the transaction's.
      for (const [accountId, accountIds] of unapplied) {
        const held = ingest.ids.get(accountId);
        if (held) for (const id of accountIds) held.add(id);
        else ingest.ids.set(accountId, accountIds);
      }
      this.shared.unapplied = undefined;
    } catch (error) {
      await this.abandonIngest();
      throw storageErrorOfDuckDb(error) ?? error;
    }
  }

  /** Appends the log's entries after the last one `ingest` holds, in order, until at least `rows` rows; whether none is left. */
  private async appendLogged(ingest: OpenIngest, rows = Infinity): Promise<boolean> {
    const ids = this.shared.log.idsAfter(ingest.lastLogged);
    const before = ingest.rows;
    let next = 0;
    for (; next < ids.length && ingest.rows - before < rows; next++) {
      const entry = this.shared.log.entry(ids[next]);
      await this.applyIngest(ingest, entry.rows, entry.clicks);
      ingest.lastLogged = ids[next];
    }
    return next === ids.length;
  }

  /** The ingest transaction, begun when none is open (committed by INGEST_COMMIT_MS at the latest). */
  private async openIngest(): Promise<OpenIngest> {
    if (this.ingest) return this.ingest;
    await this.writer.run('BEGIN TRANSACTION');
    let appender: DuckDBAppender;
    try {
      appender = await this.writer.createAppender('hits');
    } catch (error) {
      await this.writer.run('ROLLBACK').catch(() => undefined);
      throw error;
    }
    this.ingest = {
      writer: this.writer,
      appender,
      rows: 0,
      unflushedRows: 0,
      ids: new Map(),
      lastLogged: this.logCommitted,
      clicks: new Map(),
      began: Date.now(),
      timer: this.commitTimer(),
    };
    return this.ingest;
  }

  /** A timer committing the ingest transaction when no ingest comes within INGEST_IDLE_MS (or at INGEST_COMMIT_MS), restarted by each one. */
  private commitTimer(began = Date.now()): NodeJS.Timeout {
    const timer = setTimeout(() => void this.connections.settled(), Math.max(0, Math.min(INGEST_IDLE_MS, began + INGEST_COMMIT_MS - Date.now())));
    timer.unref();
    return timer;
  }

  /** Moves the rows the ingest transaction's appender holds into the transaction (its own reads see them then). */
  private flushIngest(ingest: OpenIngest): void {
    ingest.appender.flushSync();
    ingest.unflushedRows = 0;
  }

  /**
   * Appends packed rows to `hits` in the ingest transaction; the clicks counted on hits stored before
   * are added up, and written with one UPDATE per account when the transaction commits: each UPDATE
   * of rows appended in the transaction costs DuckDB's commit about as much as the rows themselves.
   */
  private async applyIngest(ingest: OpenIngest, rows: Uint8Array, clicks: readonly LoggedClicks[]): Promise<void> {
    const appended = this.hitsChunks.appendPacked(ingest.appender, rows);
    ingest.rows += appended;
    ingest.unflushedRows += appended;
    for (const { accountId, ids, counts, times } of clicks) {
      const accountClicks = ingest.clicks.get(accountId) ?? new Map<string, { n: number; timeMs: number }>();
      ingest.clicks.set(accountId, accountClicks);
      ids.forEach((id, i) => {
        const known = accountClicks.get(id);
        if (known) known.n += counts[i];
        else accountClicks.set(id, { n: counts[i], timeMs: times[i] });
      });
    }
  }

  /** Writes the clicks the ingest transaction added up (inside it), bounded by the hits' times. */
  private async writeClicks(ingest: OpenIngest): Promise<void> {
    for (const [accountId, accountClicks] of ingest.clicks) {
      const times = [...accountClicks.values()].map((click) => click.timeMs);
      await ingest.writer.run(
        `UPDATE hits SET clicks = clicks + u.n
           FROM (SELECT unnest($2::VARCHAR[]) AS id, unnest($3::UINTEGER[]) AS n) u
           WHERE hits.account_id = $1 AND hits.time_ms BETWEEN $4 AND $5 AND hits.hit_id = u.id`,
        [
          accountId,
          listValue([...accountClicks.keys()]),
          listValue([...accountClicks.values()].map((click) => click.n)),
          BigInt(Math.min(...times)),
          BigInt(Math.max(...times)),
        ],
      );
    }
    ingest.clicks.clear();
  }

  /** Commits the ingest transaction with the last log entry it holds, then removes the log's entries up to it. */
  private async commitIngest(ingest = this.ingest): Promise<void> {
    if (!ingest) return;
    clearTimeout(ingest.timer);
    try {
      ingest.appender.closeSync();
      await this.writeClicks(ingest);
      await ingest.writer.run(
        `INSERT INTO warehouse_meta (key, value) VALUES ('${INGEST_LOG_KEY}', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        [String(ingest.lastLogged)],
      );
      // Up to a row group compressed and written: on DuckDB's workers, with no thread of ours spinning meanwhile.
      await runOnWorkers(ingest.writer, 'COMMIT', this.connections.lease.workers);
    } catch (error) {
      await this.abandonIngest(ingest);
      throw storageErrorOfDuckDb(error) ?? error;
    }
    if (this.ingest === ingest) this.ingest = undefined;
    this.logCommitted = ingest.lastLogged;
    // DuckDB creates its write-ahead log with the process's umask: kept private as the database is.
    tightenFile(`${this.filename}.wal`);
    // Entries up to the recorded one are skipped (and removed) at the next open when this fails.
    try {
      this.shared.log.removeThrough(ingest.lastLogged);
    } catch {
      // See above.
    }
  }

  /** Rolls the ingest transaction back: the log's entries after `logCommitted` are to be written again. */
  private async abandonIngest(ingest = this.ingest): Promise<void> {
    if (this.ingest === ingest) this.ingest = undefined;
    this.logBehind = true;
    if (!ingest) return;
    clearTimeout(ingest.timer);
    try {
      ingest.appender.closeSync();
    } catch {
      // The rows it still held are rolled back with the transaction.
    }
    await ingest.writer.run('ROLLBACK').catch(() => undefined);
  }

  /**
   * Writes the log's entries DuckDB lacks (after the recorded last one) in one transaction, and
   * commits it: at open (after a crash) and after a failed write. The caller holds the writer (or
   * the store is opening).
   */
  private async replayIngestLog(): Promise<void> {
    await this.shared.committing?.done;
    await this.commitIngest();
    const reader = await this.writer.runAndReadAll(`SELECT value FROM warehouse_meta WHERE key = '${INGEST_LOG_KEY}'`);
    const recorded = reader.getRows()[0]?.[0];
    this.logCommitted = recorded === undefined ? 0 : Number(recorded);
    this.shared.log.skipTo(this.logCommitted);
    this.shared.log.removeThrough(this.logCommitted);
    if (this.shared.log.idsAfter(this.logCommitted).length > 0) {
      try {
        const ingest = await this.openIngest();
        await this.appendLogged(ingest);
        this.flushIngest(ingest);
      } catch (error) {
        await this.abandonIngest();
        throw storageErrorOfDuckDb(error) ?? error;
      }
      await this.commitIngest();
    }
    this.shared.unapplied = undefined;
    this.logBehind = false;
  }

  /** Commits the ingested hits waiting in the ingest transaction (and writes again those a failed write lost). The caller holds the writer. */
  async settle(): Promise<void> {
    await this.shared.committing?.done;
    if (this.logBehind) await this.replayIngestLog();
    await this.applyUnapplied();
    await this.commitIngest();
  }

  /**
   * At the close: commits the ingest transaction when this store began it, after a commit or catch-up
   * under way, and writes again what a failed write lost.
   */
  settleOnClose(): Promise<void> | undefined {
    const { committing, unapplied } = this.shared;
    return this.ingest?.writer === this.writer || this.logBehind || committing || unapplied ? this.settle() : undefined;
  }
}

/** Adds the hits' ids to `ids`, by account (each account's set looked up once per run of its hits). */
function addIds(ids: Map<string, Set<string>>, hits: readonly Hit[]): void {
  let accountIds: Set<string> | undefined;
  for (let i = 0; i < hits.length; i++) {
    const hit = hits[i];
    if (!accountIds || hit.accountId !== hits[i - 1].accountId) {
      accountIds = ids.get(hit.accountId);
      if (!accountIds) ids.set(hit.accountId, (accountIds = new Set()));
    }
    accountIds.add(hit.hitId);
  }
}
