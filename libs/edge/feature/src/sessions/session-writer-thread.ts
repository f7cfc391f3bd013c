import { Worker } from 'node:worker_threads';

/** One row to write: account, visitor, expiry (epoch ms), the session's JSON. */
export type SessionRow = [accountId: string, visitorId: string, expiresMs: number, session: string];

/**
 * The rows cross to the thread as one string, their fields separated by U+0001 and the rows by
 * U+0000: one copy instead of structured-cloning an array per row (about 1 µs a row, on each side).
 * Neither character is in a row: the ids are session key parts (SESSION_KEY_PART) and the session
 * is JSON, which escapes every control character.
 */
const FIELD = '\u0001';
const ROW = '\u0000';

function packRows(rows: readonly SessionRow[]): string {
  let packed = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    packed += `${i === 0 ? '' : ROW}${row[0]}${FIELD}${row[1]}${FIELD}${row[2]}${FIELD}${row[3]}`;
  }
  return packed;
}

/**
 * The thread's code (plain JavaScript, evaluated: no transpiler in the thread): its own connection
 * to the sessions file, where every write happens, WAL checkpoints (and their fsyncs) included.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.filename);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const upsert = db.prepare(workerData.upsertSql);
const deleteExpired = db.prepare(workerData.sweepSql);
const write = db.transaction((packed) => {
  for (const text of packed.split('\\u0000')) {
    const row = text.split('\\u0001');
    upsert.run(row[0], row[1], Number(row[2]), row[3]);
  }
});
parentPort.on('message', ({ id, rows, sweep, batch }) => {
  try {
    if (rows !== undefined) {
      write.immediate(rows);
      parentPort.postMessage({ id });
    } else {
      parentPort.postMessage({ id, deleted: deleteExpired.run(sweep, batch).changes });
    }
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error), code: error && error.code });
  }
});
`;

/**
 * Writes the session rows from a worker thread: a commit is quick (tens of µs), but every so often
 * one checkpoints the WAL into the database file with an fsync, which takes milliseconds on a busy
 * disk; on the event loop every visitor request would wait it out. Started with the store; holds the
 * process open only while a write is under way.
 */
export class SessionWriterThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (deleted: number) => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly setup: { filename: string; upsertSql: string; sweepSql: string }) {}

  /** Starts the thread ahead of the first write (loading SQLite in it takes a while). */
  start(): void {
    this.started();
  }

  /** Writes the rows in one transaction. */
  async write(rows: readonly SessionRow[]): Promise<void> {
    if (rows.length === 0) return;
    await this.send({ rows: packRows(rows) });
  }

  /** Deletes up to `batch` rows that expired by `cutoffMs` (writes sent meanwhile go in between two batches); how many. */
  sweepBatch(cutoffMs: number, batch: number): Promise<number> {
    return this.send({ sweep: cutoffMs, batch });
  }

  /** Waits for the writes under way, then stops the thread; writes and sweeps asked for after are refused (no new thread). */
  async close(): Promise<void> {
    this.closed = true;
    while (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(message: { rows: string } | { sweep: number; batch: number }): Promise<number> {
    if (this.closed) return Promise.reject(new Error("the sessions' writer thread is closed"));
    const worker = this.started();
    const id = this.nextId++;
    const answer = new Promise<number>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    worker.ref();
    worker.postMessage({ id, ...message });
    return answer;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ...this.setup, sqlite: require.resolve('better-sqlite3') } });
    worker.unref();
    worker.on('message', ({ id, deleted, error, code }: { id: number; deleted?: number; error?: string; code?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      // The SQLite error code crosses the thread too, so a full disk is still told from other failures.
      if (error !== undefined) waiting?.reject(Object.assign(new Error(error), { code }));
      else waiting?.resolve(deleted ?? 0);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the sessions' writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
