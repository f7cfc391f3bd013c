// Go's int (64 bits) in JavaScript without slowing the usual case: an int is a number while it is a
// safe integer (|n| <= 2^53-1, every value a visitor variable or len can have) and a bigint beyond.
// Each value has exactly one form, so === and Map keys compare ints exactly, and < <= > >= compare a
// number with a bigint exactly too (JavaScript compares their mathematical values).

export type GoInt = number | bigint;

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
const SAFE_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** The one form of an integer value: a number when safe, else the bigint. */
export function normalizeInt(value: bigint): GoInt {
  return value >= SAFE_MIN && value <= SAFE_MAX ? Number(value) : value;
}

/** Whether an (untyped, exact) integer constant fits Go's int. */
export function fitsInt64(value: GoInt): boolean {
  return typeof value === 'number' || (value >= INT64_MIN && value <= INT64_MAX);
}

/** -x on an int: exact for constants; at run time -(-2^63) wraps to -2^63, as in Go. */
export function negateInt(value: GoInt): GoInt {
  if (typeof value === 'number') return 0 - value; // 0 - 0 is +0, never -0
  return normalizeInt(-value);
}

/** Run-time -x on an int, wrapping around 64 bits. */
export function negateInt64(value: GoInt): GoInt {
  if (typeof value === 'number') return 0 - value;
  return normalizeInt(BigInt.asIntN(64, -value));
}
