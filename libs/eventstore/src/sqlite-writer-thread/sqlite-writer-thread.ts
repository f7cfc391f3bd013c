import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { SqliteDurability } from '../private-sqlite';
import { storageErrorOf } from '../storage-health';
import { PackedRows, SlicedText } from './rows';
import { WORKER_SOURCE, type RunAnswer, type RunMessage } from './worker-source';

export interface SqliteWriterThreadOptions {
  /** The database file, already created (0600, tables) by a connection of this process: see openPrivateSqlite. */
  filename: string;
  /** The statements the thread runs, by name. */
  statements: Readonly<Record<string, string>>;
  /** The store's name in a StorageUnavailableError (a full disk, a read-only or failing volume). */
  store: string;
  /** As the store's own connection (openPrivateSqlite): `normal` (default) or `full` (an fsync per commit). */
  durability?: SqliteDurability;
  /** The error a write asked for after `close()` rejects with (default: an Error naming the store). */
  closedError?: () => Error;
}

/** A write's rows: arrays of parameters (a text among them may be a SlicedText), or packed (packRows). */
export type WriterRows = readonly (readonly unknown[])[] | PackedRows;

interface Waiting {
  resolve: (changes: number | number[]) => void;
  reject: (error: Error) => void;
}

/**
 * Writes to a SQLite file from a worker thread, so that a write never holds up the event loop: a
 * commit is quick (tens of µs), but every so often one checkpoints the WAL into the database file
 * with an fsync, which takes milliseconds on a busy disk, and a multi-MB row takes SQLite tens of
 * milliseconds. The thread runs named statements, each write in one transaction; a write resolves
 * once committed (durable through a crash of the process in WAL mode, `normal`; through a power loss,
 * `full`), in call order. A failure for the storage rejects with a StorageUnavailableError (the
 * SQLite code crosses the thread), others with the SQLite error and its `code`.
 * Started on first use (or `start()`); holds the process open only while a write is under way.
 */
export class SqliteWriterThread {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Waiting>();
  /** Called once no write is pending (close waits for it). */
  private drained: (() => void)[] = [];
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: SqliteWriterThreadOptions) {}

  /** Starts the thread ahead of the first write (loading SQLite in it takes a while); not once closed. */
  start(): void {
    if (!this.closed) this.started();
  }

  /** Runs the statement `statement` once per row, all in one transaction; resolves with the rows changed in all. */
  run(statement: string, rows: WriterRows): Promise<number> {
    return this.send(statement, rows, false) as Promise<number>;
  }

  /** As `run`, resolving with the changes of each row (0: a row an ON CONFLICT clause left out). */
  runEach(statement: string, rows: WriterRows): Promise<number[]> {
    return this.send(statement, rows, true) as Promise<number[]>;
  }

  /** Waits for the writes under way, then stops the thread; writes asked for after are refused (no new thread). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pending.size > 0) await new Promise<void>((resolve) => this.drained.push(resolve));
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private send(statement: string, rows: WriterRows, each: boolean): Promise<number | number[]> {
    if (this.closed) return Promise.reject(this.options.closedError?.() ?? new Error(`the ${this.options.store} writer is closed`));
    if (!Object.hasOwn(this.options.statements, statement)) return Promise.reject(new Error(`the ${this.options.store} writer has no statement ${statement}`));
    if ((rows instanceof PackedRows ? rows.count : rows.length) === 0) return Promise.resolve(each ? [] : 0);
    const worker = this.started();
    const id = this.nextId++;
    const answer = new Promise<number | number[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    worker.ref();
    if (rows instanceof PackedRows) {
      const { text, fields, numbers } = rows;
      worker.postMessage({ id, statement, packed: { text, fields, numbers }, each } satisfies RunMessage);
      return answer;
    }
    const sliced: [number, number, number][] = [];
    const texts: SlicedText[] = [];
    const plain = rows.map((row, r) => {
      if (!row.some((value) => value instanceof SlicedText)) return row;
      return row.map((value, f) => {
        if (!(value instanceof SlicedText)) return value;
        sliced.push([r, f, value.slices.length]);
        texts.push(value);
        return null;
      });
    });
    if (texts.length === 0) {
      worker.postMessage({ id, statement, rows, each } satisfies RunMessage);
      return answer;
    }
    // Both awaited from now on: a thread that dies while slices are sent rejects the write, never unhandled.
    return Promise.all([this.sendSliced(worker, texts, { id, statement, rows: plain, sliced, each }), answer]).then(([, changes]) => changes);
  }

  /** The slices first, a turn of the event loop between two, then the write. */
  private async sendSliced(worker: Worker, texts: readonly SlicedText[], message: RunMessage): Promise<void> {
    for (const text of texts) {
      for (const slice of text.slices) {
        worker.postMessage({ id: message.id, slice });
        await nextTurn();
      }
    }
    worker.postMessage(message);
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const { filename, statements, durability } = this.options;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { filename, statements, synchronous: durability === 'full' ? 'FULL' : 'NORMAL', sqlite: require.resolve('better-sqlite3') },
    });
    worker.unref();
    worker.on('message', ({ id, changes, error, code }: RunAnswer) => {
      const waiting = this.pending.get(id);
      this.pending.delete(id);
      if (this.pending.size === 0) {
        worker.unref();
        this.drain();
      }
      if (error === undefined) return waiting?.resolve(changes ?? 0);
      // The SQLite error code crosses the thread too, so a full disk is still told from other failures.
      waiting?.reject(this.failure(Object.assign(new Error(error), { code })));
    });
    const fail = (error: Error) => {
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      this.drain();
      if (this.worker === worker) this.worker = undefined;
    };
    worker.on('error', (error) => fail(this.failure(error)));
    worker.on('exit', (code) => fail(new Error(`the ${this.options.store} writer thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private failure(error: Error): Error {
    return storageErrorOf(error, this.options.store) ?? error;
  }

  private drain(): void {
    for (const resolve of this.drained.splice(0)) resolve();
  }
}
