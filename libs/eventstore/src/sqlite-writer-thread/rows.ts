/**
 * The forms in which a write's rows cross to a SqliteWriterThread (a message to a worker thread is
 * structured-cloned): arrays of parameters (one per row), rows packed into one string, and texts
 * sent in slices.
 */

/** A packed row's fields are separated by U+0001, its rows by U+0000 (the thread splits on them). */
export const PACKED_FIELD = '\u0001';
export const PACKED_ROW = '\u0000';

/** A row that can be packed: texts and numbers, neither U+0000 nor U+0001 in a text. */
export type PackableRow = readonly (string | number)[];

/**
 * Rows packed into one string (packRows): one copy to the thread instead of structured-cloning an
 * array per row, which costs about 1 µs a row on each side. The thread gives a field back as text,
 * or as a number where the first row had a number.
 */
export class PackedRows {
  constructor(
    /** The rows' fields, joined by PACKED_FIELD within a row, the rows by PACKED_ROW. */
    readonly text: string,
    /** How many rows. */
    readonly count: number,
    /** Fields per row: a row of another count is refused by the thread (a separator inside a text). */
    readonly fields: number,
    /** The positions of the fields that cross as numbers. */
    readonly numbers: readonly number[],
  ) {}
}

/**
 * Packs rows of the same shape (the fields of each position all texts or all numbers) into one
 * string. No text may hold U+0000 or U+0001 (ids of a known alphabet and JSON, which escapes every
 * control character, never do): the thread refuses the write of a row that splits otherwise.
 */
export function packRows(rows: readonly PackableRow[]): PackedRows {
  if (rows.length === 0) return new PackedRows('', 0, 0, []);
  const first = rows[0];
  const numbers: number[] = [];
  for (let j = 0; j < first.length; j++) if (typeof first[j] === 'number') numbers.push(j);
  let text = '';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    text += i === 0 ? row[0] : PACKED_ROW + row[0];
    for (let j = 1; j < row.length; j++) text += PACKED_FIELD + row[j];
  }
  return new PackedRows(text, rows.length, first.length, numbers);
}

/**
 * A text parameter sent to the thread a slice at a time, a turn of the event loop between two
 * slices (one message of a multi-MB text takes tens of milliseconds to copy); the thread binds the
 * slices joined.
 */
export class SlicedText {
  constructor(readonly slices: readonly string[]) {}
}
