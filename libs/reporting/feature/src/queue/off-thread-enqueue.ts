import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';

/** One job as the INSERT takes it: the payload already JSON text. */
export interface EncodedJob {
  jobId: string;
  type: string;
  accountId: string;
  queuedAt: string;
  payload: string;
}

/** A job whose JSON payload is the concatenation of `pieces` (see jsonInSlices). */
export type SlicedJob = Omit<EncodedJob, 'payload'> & { pieces: string[] };

/**
 * The worker thread's code (plain JavaScript, evaluated: no transpiler needed in the thread): its
 * own connection to the queue file, the same INSERT in one IMMEDIATE transaction as the queue's own.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.filename);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('busy_timeout = 5000');
const insert = db.prepare(workerData.insertSql);
const enqueue = db.transaction((jobs, now, windowStart) =>
  jobs.filter((job) => insert.run(job.jobId, job.type, job.accountId, job.queuedAt, job.payload, now, now, windowStart).changes === 0).map((job) => job.jobId),
);
const received = new Map();
parentPort.on('message', ({ id, piece, jobs, now, windowStart }) => {
  if (piece !== undefined) {
    if (!received.has(id)) received.set(id, []);
    received.get(id).push(piece);
    return;
  }
  const pieces = received.get(id) || [];
  received.delete(id);
  try {
    let next = 0;
    const encoded = jobs.map(({ pieceCount, ...job }) => ({ ...job, payload: pieces.slice(next, (next += pieceCount)).join('') }));
    parentPort.postMessage({ id, duplicates: enqueue.immediate(encoded, now, windowStart) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error), code: error && error.code });
  }
});
`;

/**
 * Writes large jobs to the embedded queue's file from a worker thread: the INSERT of a multi-MB
 * payload takes SQLite 50-100 ms, which on the main thread every other request would wait out.
 * Started on the first large enqueue; holds the process open only while a write is under way.
 */
export class OffThreadEnqueue {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: (duplicates: string[]) => void; reject: (error: Error) => void }>();
  private nextId = 0;

  constructor(private readonly setup: { filename: string; insertSql: string; synchronous: 'NORMAL' | 'FULL' }) {}

  /**
   * Stores the jobs (one transaction) and answers the ids refused as duplicates, as the queue's own
   * enqueue does. The payloads go to the thread piece by piece, a turn of the event loop between
   * two (copying a multi-MB text to the thread in one message takes tens of milliseconds).
   */
  async enqueue(jobs: readonly SlicedJob[], now: number, windowStart: number): Promise<string[]> {
    const worker = this.started();
    const id = this.nextId++;
    const answer = new Promise<string[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    worker.ref();
    for (const job of jobs) {
      for (const piece of job.pieces) {
        worker.postMessage({ id, piece });
        await nextTurn();
      }
    }
    const meta = jobs.map(({ pieces, ...job }) => ({ ...job, pieceCount: pieces.length }));
    worker.postMessage({ id, jobs: meta, now, windowStart });
    return answer;
  }

  /** Waits for the writes under way, then stops the thread. */
  async close(): Promise<void> {
    while (this.pending.size > 0) await new Promise((resolve) => setImmediate(resolve));
    await this.worker?.terminate();
    this.worker = undefined;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { ...this.setup, sqlite: require.resolve('better-sqlite3') },
    });
    worker.unref();
    worker.on('message', ({ id, duplicates, error, code }: { id: number; duplicates?: string[]; error?: string; code?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      // The SQLite error code crosses the thread too, so a full disk is still told from other failures.
      if (error !== undefined) waiting?.reject(Object.assign(new Error(error), { code }));
      else waiting?.resolve(duplicates ?? []);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the queue's writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
