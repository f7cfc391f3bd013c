import { PACKED_FIELD, PACKED_ROW } from './rows';

/** A message to the thread: a slice of a SlicedText of write `id`, sent ahead of the write. */
export interface SliceMessage {
  id: number;
  slice: string;
}

/** A message to the thread: run `statement` over the rows, in one transaction. */
export interface RunMessage {
  id: number;
  statement: string;
  /** The rows as arrays of parameters (a SlicedText's place holds null)... */
  rows?: readonly (readonly unknown[])[];
  /** ...or packed (PackedRows, without its class). */
  packed?: { text: string; fields: number; numbers: readonly number[] };
  /** [row, field, slice count] of each SlicedText, in the order their slices were sent. */
  sliced?: readonly (readonly [number, number, number])[];
  /** Answer the changes of each row rather than their total. */
  each?: boolean;
}

/** The thread's answer: the changes (total, or per row), or the error's message and SQLite code. */
export interface RunAnswer {
  id: number;
  changes?: number | number[];
  error?: string;
  code?: string;
}

/**
 * The thread's code (plain JavaScript, evaluated: no transpiler in the thread): its own connection
 * to the file (WAL, `synchronous` as asked, busy_timeout 5 s, as openPrivateSqlite), where every
 * write happens, WAL checkpoints (and their fsyncs) included. A run is one IMMEDIATE transaction.
 */
export const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqlite);
const db = new Database(workerData.filename);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = ' + workerData.synchronous);
db.pragma('busy_timeout = 5000');
const statements = new Map();
for (const [name, sql] of Object.entries(workerData.statements)) statements.set(name, db.prepare(sql));
const FIELD = ${JSON.stringify(PACKED_FIELD)};
const ROW = ${JSON.stringify(PACKED_ROW)};
const runRows = db.transaction((statement, rows, packed, each) => {
  let total = 0;
  const changes = each ? [] : undefined;
  const runOne = (params) => {
    const n = statement.run(...params).changes;
    total += n;
    if (changes) changes.push(n);
  };
  if (packed) {
    for (const text of packed.text.split(ROW)) {
      const row = text.split(FIELD);
      if (row.length !== packed.fields) throw new Error('a packed row has ' + row.length + ' fields, not ' + packed.fields + ': a text holds a separator');
      for (const i of packed.numbers) row[i] = Number(row[i]);
      runOne(row);
    }
  } else {
    for (const row of rows) runOne(row);
  }
  return changes || total;
});
const slices = new Map();
parentPort.on('message', (message) => {
  const { id } = message;
  if (message.slice !== undefined) {
    if (!slices.has(id)) slices.set(id, []);
    slices.get(id).push(message.slice);
    return;
  }
  const received = slices.get(id) || [];
  slices.delete(id);
  try {
    const rows = message.rows;
    if (message.sliced) {
      let next = 0;
      for (const [row, field, count] of message.sliced) rows[row][field] = received.slice(next, (next += count)).join('');
    }
    parentPort.postMessage({ id, changes: runRows.immediate(statements.get(message.statement), rows, message.packed, message.each) });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error), code: error && error.code });
  }
});
`;
