// A packed text column's long texts (more than DuckDB's 12 inline bytes): written after its string_t, assigned to its vector.
import duckdb from '@duckdb/node-bindings';
import { STRING_BYTES } from './columns';

/**
 * A text column's long texts as `pack` writes them after the column's string_t (left empty for them):
 * per long text its row (uint32) and then either its UTF-8 length (int32) and bytes, padded to 4, or,
 * for a text an earlier row of the column holds, -1 - that row (whose string_t is then copied: both
 * point at the one copy in the vector's string heap).
 */
export function packLongTexts(target: Buffer, at: number, rows: readonly number[], texts: readonly string[]): number {
  const firstRow = new Map<string, number>();
  let end = at;
  for (let i = 0; i < rows.length; i++) {
    const text = texts[i];
    target.writeUInt32LE(rows[i], end);
    const earlier = firstRow.get(text);
    if (earlier !== undefined) {
      target.writeInt32LE(-1 - earlier, end + 4);
      end += 8;
      continue;
    }
    firstRow.set(text, rows[i]);
    const length = asciiInto(target, end + 8, text) ?? target.write(text, end + 8, 'utf8');
    target.writeInt32LE(length, end + 4);
    const padded = (length + 3) & ~3;
    // Padding zeroed: the buffer is reused and its bytes go to the ingest log.
    for (let i = length; i < padded; i++) target[end + 8 + i] = 0;
    end += 8 + padded;
  }
  return end - at;
}

/** The bytes of `text` written at `at` when it is ASCII (its length), else undefined (nothing meant). */
function asciiInto(target: Buffer, at: number, text: string): number | undefined {
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code > 0x7f) return undefined;
    target[at + i] = code;
  }
  return length;
}

/** The most bytes `packLongTexts` writes for these texts. */
export function longTextsBound(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += 12 + text.length * 3;
  return bytes;
}

/** Assigns the long texts packed by `packLongTexts` (`view` and `bytes` over them) to the rows of `vector` (of `count` rows). */
export function assignLongTexts(vector: duckdb.Vector, count: number, view: DataView, bytes: Uint8Array): void {
  let repeats = false;
  for (let at = 0; at < view.byteLength;) {
    const length = view.getInt32(at + 4, true);
    if (length >= 0) {
      duckdb.vector_assign_string_element_len(vector, view.getUint32(at, true), bytes.subarray(at + 8, at + 8 + length));
      at += 8 + ((length + 3) & ~3);
    } else {
      repeats = true;
      at += 8;
    }
  }
  if (!repeats) return;
  // The vector's string_t (a copy) with the repeats' taken from their earlier rows, copied back at once.
  const data = duckdb.vector_get_data(vector, count * STRING_BYTES);
  for (let at = 0; at < view.byteLength;) {
    const length = view.getInt32(at + 4, true);
    if (length < 0) {
      const earlier = -1 - length;
      data.copyWithin(view.getUint32(at, true) * STRING_BYTES, earlier * STRING_BYTES, (earlier + 1) * STRING_BYTES);
    }
    at += length >= 0 ? 8 + ((length + 3) & ~3) : 8;
  }
  duckdb.copy_data_to_vector(vector, 0, data.buffer as ArrayBuffer, data.byteOffset, count * STRING_BYTES);
}
