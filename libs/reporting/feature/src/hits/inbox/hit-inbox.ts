import type Database from 'better-sqlite3';
import { openPrivateSqlite, writingTo } from '@funnel/eventstore';
import type { IngestHitsResult } from '../ingest-hits';
import { packPostedBatch, unpackPostedBatch } from './posted-batch';

/** Answered batches are kept this long for their submitter to read, then removed. */
const ANSWER_KEPT_MS = 60 * 60_000;

/** Posted hits ingested together at most (several posted batches are stored in one warehouse write). */
export const POSTED_HITS_PER_INGEST = 10_000;

/** The process that holds the warehouse took no batch within this time: the submitter gives up. */
export const INBOX_ANSWER_TIMEOUT_MS = 60_000;

/** A posted batch's row: its text (see posted-batch.ts). */
export const POSTED_INSERT_SQL = 'INSERT INTO hit_inbox_posted (hits) VALUES (?)';

/** Posted batches read per look at the inbox. */
const POSTED_BATCHES_PER_READ = 256;

/** Posted hits the holder refused (invalid, so never storable): reported, then dropped. */
export class PostedHitsRefusedError extends Error {
  constructor(readonly result: IngestHitsResult) {
    super(`the hits inbox dropped ${result.invalidCount} posted hit(s) the warehouse refuses, e.g. ${JSON.stringify(result.invalid[0]?.errors ?? [])}`);
  }
}

export class InboxTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(
      `no process took the hits within ${timeoutMs / 1000} s: the process holding the hit warehouse reads them from its inbox (a standalone running on this DATA_DIR); is it still running?`,
    );
  }
}

/**
 * The hits inbox: batches of hits handed to the process that holds the embedded hit warehouse
 * (DuckDB opens a file in one process only). `hits:import` writes a batch into a table of the
 * reporting SQLite file (which any process may write), the holding process ingests it with
 * `ingestHits` and writes the answer beside it; the submitter reads the answer. A batch is taken
 * in submission order. A holder that dies between ingesting a batch and writing its answer ingests
 * it again when it restarts: its hits are then already stored (`ignored`), never stored twice.
 *
 * Posted batches (`post`, the standalone tracking edge) wait for no answer: they are durable once
 * `post` returns (one row each, a visitor shared by several hits written once: see posted-batch.ts), the holder ingests consecutive ones together (up to POSTED_HITS_PER_INGEST hits per
 * warehouse write) and deletes them once stored; a batch that could not be stored stays to be
 * retried at the next drain.
 */
export class HitInbox {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, number]>;
  private readonly selectAnswer: Database.Statement<[number], { result: string | null } | undefined>;
  private readonly selectNext: Database.Statement<[], { id: number; hits: string } | undefined>;
  private readonly writeAnswer: Database.Statement<[string, number, number]>;
  private readonly removeOld: Database.Statement<[number]>;
  private readonly insertPosted: Database.Statement<[string]>;
  private readonly selectPosted: Database.Statement<[number], { id: number; hits: string }>;
  private readonly removePosted: Database.Statement<[number]>;

  constructor(filename: string) {
    this.db = openPrivateSqlite(filename);
    this.db.exec(`CREATE TABLE IF NOT EXISTS hit_inbox (
      id           INTEGER PRIMARY KEY AUTOINCREMENT,
      hits         TEXT    NOT NULL,
      submitted_ms INTEGER NOT NULL,
      result       TEXT,
      answered_ms  INTEGER
    )`);
    this.db.exec(`CREATE TABLE IF NOT EXISTS hit_inbox_posted (
      id   INTEGER PRIMARY KEY AUTOINCREMENT,
      hits TEXT    NOT NULL
    )`);
    this.insertPosted = this.db.prepare(POSTED_INSERT_SQL);
    this.selectPosted = this.db.prepare('SELECT id, hits FROM hit_inbox_posted ORDER BY id LIMIT ?');
    this.removePosted = this.db.prepare('DELETE FROM hit_inbox_posted WHERE id <= ?');
    this.insert = this.db.prepare('INSERT INTO hit_inbox (hits, submitted_ms) VALUES (?, ?)');
    this.selectAnswer = this.db.prepare('SELECT result FROM hit_inbox WHERE id = ?');
    this.selectNext = this.db.prepare('SELECT id, hits FROM hit_inbox WHERE result IS NULL ORDER BY id LIMIT 1');
    this.writeAnswer = this.db.prepare("UPDATE hit_inbox SET result = ?, answered_ms = ?, hits = '[]' WHERE id = ?");
    this.removeOld = this.db.prepare('DELETE FROM hit_inbox WHERE answered_ms IS NOT NULL AND answered_ms < ?');
  }

  /** Hands a batch (hits as read, unchecked) to the holding process; resolves with its ingest answer. */
  async submit(inputs: readonly unknown[], options: { timeoutMs?: number; pollMs?: number } = {}): Promise<IngestHitsResult> {
    const id = Number(writingTo('hits inbox', () => this.insert.run(JSON.stringify(inputs), Date.now())).lastInsertRowid);
    const timeoutMs = options.timeoutMs ?? INBOX_ANSWER_TIMEOUT_MS;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const row = this.selectAnswer.get(id);
      if (row?.result) {
        const answer = JSON.parse(row.result) as IngestHitsResult | { error: string };
        if ('error' in answer) throw new Error(`the process holding the hit warehouse could not store the batch: ${answer.error}`);
        return answer;
      }
      if (Date.now() > deadline) throw new InboxTimeoutError(timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20));
    }
  }

  /**
   * Hands a batch to the holding process without waiting for it: the batch is durable (committed to
   * the inbox, kept through a crash of either process) when this returns. Hits the holder refuses
   * as invalid are reported to its `watch` onError.
   */
  post(inputs: readonly unknown[]): void {
    if (inputs.length === 0) return;
    writingTo('hits inbox', () => this.insertPosted.run(packPostedBatch(inputs)));
  }

  /** Posted hits waiting for the holder. */
  postedWaiting(): number {
    return (this.db.prepare('SELECT COUNT(*) AS batches FROM hit_inbox_posted').get() as { batches: number }).batches;
  }

  /**
   * The holder's side: ingests every waiting batch in order with `ingest`, then the posted ones
   * (several per call); the number of batches taken.
   */
  async drain(ingest: (inputs: unknown[]) => Promise<IngestHitsResult>, onError: (error: unknown) => void = () => undefined): Promise<number> {
    let taken = await this.drainSubmitted(ingest);
    for (;;) {
      const rows = this.selectPosted.all(POSTED_BATCHES_PER_READ);
      if (rows.length === 0) break;
      // Whole batches, until the hits of one warehouse write are reached (a batch may pass the bound).
      const inputs: unknown[] = [];
      let last = 0;
      for (const row of rows) {
        if (inputs.length >= POSTED_HITS_PER_INGEST) break;
        for (const input of unpackPostedBatch(row.hits)) inputs.push(input);
        last = row.id;
        taken++;
      }
      // A failure (a full disk) throws and leaves the batches in the inbox for the next drain.
      const result = await ingest(inputs);
      if (result.invalidCount > 0) onError(new PostedHitsRefusedError(result));
      writingTo('hits inbox', () => this.removePosted.run(last));
    }
    return taken;
  }

  private async drainSubmitted(ingest: (inputs: unknown[]) => Promise<IngestHitsResult>): Promise<number> {
    let taken = 0;
    for (let next = this.selectNext.get(); next; next = this.selectNext.get()) {
      // A batch that cannot be stored (a full disk) is answered with the error, not retried forever.
      const result = await ingest(JSON.parse(next.hits) as unknown[]).catch((error: unknown) => ({
        error: error instanceof Error ? error.message : String(error),
      }));
      writingTo('hits inbox', () => this.writeAnswer.run(JSON.stringify(result), Date.now(), next!.id));
      taken++;
    }
    if (taken > 0) this.removeOld.run(Date.now() - ANSWER_KEPT_MS);
    return taken;
  }

  /** Drains every `intervalMs` until the returned stop is called (which waits for a drain in progress). */
  watch(ingest: (inputs: unknown[]) => Promise<IngestHitsResult>, intervalMs = 50, onError: (error: unknown) => void = () => undefined): () => Promise<void> {
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let running: Promise<unknown> = Promise.resolve();
    const tick = () => {
      running = this.drain(ingest, onError)
        .catch(onError)
        .finally(() => {
          if (!stopped) timer = setTimeout(tick, intervalMs);
        });
    };
    timer = setTimeout(tick, intervalMs);
    return async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
    };
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
