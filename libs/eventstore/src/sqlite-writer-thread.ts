import { Worker } from 'node:worker_threads';
import { storageErrorOf } from './storage-health';

export interface SqliteWriterThreadOptions {
  /** The database file, already created (0600, tables) by a connection of this process: see openPrivateSqlite. */
  filename: string;
  /** The statements the thread runs, by name. */
  statements: Readonly<Record<string, string>>;
  /** The store's name in a StorageUnavailableError (a full disk, a read-only or failing volume). */
  store: string;
}

/**
 * The thread's code (plain JavaScript, evaluated: no transpiler in the thread): its own connection
 * to the file (WAL, synchronous NORMAL, as openPrivateSqlite), where every write happens, WAL
 * checkpoints (and their fsyncs) included.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.filename);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = NORMAL');
db.pragma('busy_timeout = 5000');
const statements = {};
for (const [name, sql] of Object.entries(workerData.statements)) statements[name] = db.prepare(sql);
const runAll = db.transaction((statement, rows) => {
  for (const row of rows) statement.run(...row);
});
parentPort.on('message', ({ id, statement, rows }) => {
  try {
    runAll.immediate(statements[statement], rows);
    parentPort.postMessage({ id });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error), code: error && error.code });
  }
});
`;

/**
 * Writes to a SQLite file from a worker thread, so that a write never holds up the event loop: a
 * commit is quick (tens of µs), but every so often one checkpoints the WAL into the database file
 * with an fsync, which takes milliseconds on a busy disk. `run` resolves once its rows are
 * committed (durable through a crash of the process, as synchronous NORMAL in WAL mode makes them).
 * Started on first use (or `start()`); holds the process open only while a write is under way.
 */
export class SqliteWriterThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: SqliteWriterThreadOptions) {}

  /** Starts the thread ahead of the first write (loading SQLite in it takes a while). */
  start(): void {
    this.started();
  }

  /** Runs the statement `statement` once per row of parameters, all in one transaction. */
  run(statement: string, rows: readonly (readonly unknown[])[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.store} writer is closed`));
    if (!(statement in this.options.statements)) return Promise.reject(new Error(`the ${this.options.store} writer has no statement ${statement}`));
    const worker = this.started();
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    worker.ref();
    worker.postMessage({ id, statement, rows });
    return done;
  }

  /** Waits for the writes under way, then stops the thread; later writes are refused. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.pending.size > 0) await new Promise((resolve) => setTimeout(resolve, 1));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { filename: this.options.filename, statements: this.options.statements, sqlite: require.resolve('better-sqlite3') },
    });
    worker.unref();
    worker.on('message', ({ id, error, code }: { id: number; error?: string; code?: string }) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) worker.unref();
      if (error === undefined) return waiting?.resolve();
      // The SQLite error code crosses the thread too, so a full disk is still told from other failures.
      const failure = Object.assign(new Error(error), { code });
      waiting?.reject(storageErrorOf(failure, this.options.store) ?? failure);
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the ${this.options.store} writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }
}
