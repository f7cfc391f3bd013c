// How a column of each declared type is laid out as DuckDB's vector holds it (ChunkWriter copies it into a data chunk).
import { BIGINT, BOOLEAN, DECIMAL, LIST, UINTEGER, UTINYINT, VARCHAR, type DuckDBType } from '@duckdb/node-api';
import { toMicros } from '@funnel/reporting-domain';
import type { WarehouseValue } from '../../hit-row';

/** DuckDB's vector size: the most rows one data chunk holds. */
export const CHUNK_ROWS = 2048;

/**
 * A column's value of an item laid out (a hit, a row), given with its index among the items: read
 * straight from the item, one call a value (no row object made per item, no function per chunk).
 */
export type ColumnValue<T> = (item: T, index: number) => WarehouseValue;

/** Each column's ColumnValue, asked once per column by its name. */
export type ColumnValuesOf<T> = (column: string) => ColumnValue<T>;

/**
 * A column of up to CHUNK_ROWS rows laid out as DuckDB's vector holds it: `bytes` bytes at the offset
 * given (in a scratch buffer of CHUNK_ROWS * 16 bytes, or in the pack buffer) of fixed-width values, or of string_t
 * with the short texts inline (below) and the others, by row, in `longRows`/`longTexts`; a list
 * column has its `values` instead. Every column here is NOT NULL: the validity mask of a fresh or
 * reset chunk says all valid.
 */
export interface LaidColumn {
  bytes: number;
  longRows?: number[];
  longTexts?: string[];
  values?: WarehouseValue[];
}

/** Lays out a column's values of `count` items from `start` (see LaidColumn) at `offset` (a multiple of 8) of `target`. */
export type Lay = <T>(items: readonly T[], start: number, count: number, value: ColumnValue<T>, target: ArrayBuffer, offset: number) => LaidColumn;

/** How a column of a declared type is handed to DuckDB: laid out, then copied into its vector (a list column: its elements, by `child`, into its child vector). */
export interface ColumnWriter {
  type: DuckDBType;
  /** The bytes a row takes laid out (0: a list column, whose values go in the header). */
  width: number;
  lay: Lay;
  /** A list column's writer of its elements. */
  child?: ColumnWriter;
}

/** DuckDB's string_t: 16 bytes, a uint32 length, then up to 12 bytes inline (longer ones point into the vector's string heap). */
export const STRING_BYTES = 16;
const INLINE_BYTES = 12;

/**
 * Text: ASCII of at most 12 bytes (ids, codes, "", most visitor attributes) laid out inline in its
 * string_t, padded with zeros as DuckDB compares it, all copied at once; other text then assigned by
 * DuckDB (one native call each, which copies it into the vector's string heap).
 */
const layText: Lay = (items, start, count, value, target, offset) => {
  const bytes = new Uint8Array(target, offset, count * STRING_BYTES);
  const words = new Uint32Array(target, offset, count * 4);
  words.fill(0);
  // Made for the first long text only (most columns of a chunk have none).
  let longRows: number[] | undefined;
  let longTexts: string[] | undefined;
  for (let row = 0; row < count; row++) {
    const text = String(value(items[start + row], start + row));
    const length = text.length;
    let inline = length <= INLINE_BYTES;
    const at = row * STRING_BYTES + 4;
    for (let i = 0; inline && i < length; i++) {
      const code = text.charCodeAt(i);
      if (code > 0x7f) inline = false;
      else bytes[at + i] = code;
    }
    if (inline) words[row * 4] = length;
    else {
      // Left all zeros (an empty string) until assigned.
      for (let i = 0; i < INLINE_BYTES; i++) bytes[at + i] = 0;
      (longRows ??= []).push(row);
      (longTexts ??= []).push(text);
    }
  }
  return { bytes: count * STRING_BYTES, longRows, longTexts };
};

function layNumbers(array: (target: ArrayBuffer, offset: number, count: number) => Uint8Array | Uint32Array): Lay {
  return (items, start, count, value, target, offset) => {
    const values = array(target, offset, count);
    for (let row = 0; row < count; row++) values[row] = Number(value(items[start + row], start + row));
    return { bytes: values.byteLength };
  };
}

function layBigInts(convert: (value: WarehouseValue) => bigint): Lay {
  return (items, start, count, value, target, offset) => {
    const values = new BigInt64Array(target, offset, count);
    for (let row = 0; row < count; row++) values[row] = convert(value(items[start + row], start + row));
    return { bytes: values.byteLength };
  };
}

/** DECIMAL(18,6) is an int64 of micro-units, of at most 18 digits. */
const DECIMAL_LIMIT = 10n ** 18n;
function micros(value: WarehouseValue): bigint {
  if (value === '0') return 0n;
  const result = toMicros(String(value));
  if (result >= DECIMAL_LIMIT || result <= -DECIMAL_LIMIT) throw new RangeError(`${String(value)} is out of the range of DECIMAL(18,6)`);
  return result;
}

/** A list column: its values as given, each element checked here (`check` throws for one the column cannot hold), laid out by `child` when written. */
function listWriter(type: DuckDBType, child: ColumnWriter, check: (element: WarehouseValue) => unknown): ColumnWriter {
  return {
    type,
    width: 0,
    child,
    lay: (items, start, count, value) => {
      const values: WarehouseValue[] = new Array(count);
      for (let row = 0; row < count; row++) {
        values[row] = value(items[start + row], start + row);
        for (const element of values[row] as readonly WarehouseValue[]) check(element);
      }
      return { bytes: 0, values };
    },
  };
}

const bigintOf = (value: WarehouseValue) => BigInt(value as number);
const TEXT: ColumnWriter = { type: VARCHAR, width: STRING_BYTES, lay: layText };
const BIGINTS: ColumnWriter = { type: BIGINT, width: 8, lay: layBigInts(bigintOf) };
const DECIMALS: ColumnWriter = { type: DECIMAL(18, 6), width: 8, lay: layBigInts(micros) };

/** The writers by DuckDB type, as WAREHOUSE_COLUMNS spell them (up to a DEFAULT or NOT NULL). */
const WRITERS: Readonly<Record<string, ColumnWriter>> = {
  VARCHAR: TEXT,
  BIGINT: BIGINTS,
  BOOLEAN: { type: BOOLEAN, width: 1, lay: layNumbers((target, offset, count) => new Uint8Array(target, offset, count)) },
  UTINYINT: { type: UTINYINT, width: 1, lay: layNumbers((target, offset, count) => new Uint8Array(target, offset, count)) },
  UINTEGER: { type: UINTEGER, width: 4, lay: layNumbers((target, offset, count) => new Uint32Array(target, offset, count)) },
  'DECIMAL(18,6)': DECIMALS,
  'VARCHAR[]': listWriter(LIST(VARCHAR), TEXT, String),
  'BIGINT[]': listWriter(LIST(BIGINT), BIGINTS, bigintOf),
  'DECIMAL(18,6)[]': listWriter(LIST(DECIMAL(18, 6)), DECIMALS, micros),
};

/** The writer of a column declared as `declaration` (`VARCHAR NOT NULL DEFAULT ''` -> VARCHAR). */
export function columnWriter(declaration: string): ColumnWriter {
  const type = declaration.split(' ')[0];
  const writer = WRITERS[type];
  if (!writer) throw new Error(`no DuckDB writer for column type ${type}`);
  return writer;
}
