// Go's string semantics where JavaScript's differ: strings.ToLower and strings.ToUpper map rune by
// rune with Unicode's simple mappings (Go's unicode.CaseRanges, generated from Go itself), where
// String.prototype.toLowerCase applies full and context-dependent mappings ("ß" -> "SS", "İ" -> "i̇",
// a final "Σ" -> "ς").
import { CASE_RANGES, UPPER_LOWER } from './case-ranges.generated';

const UPPER = 0;
const LOWER = 1;
type Case = typeof UPPER | typeof LOWER;

const RANGE_COUNT = CASE_RANGES.length / 4;
const NON_ASCII = /[\u0080-\uffff]/;

/** unicode.To: binary search of the case ranges, as Go does it. */
function to(kase: Case, r: number): number {
  let lo = 0;
  let hi = RANGE_COUNT;
  while (lo < hi) {
    const m = (lo + hi) >>> 1;
    const base = m * 4;
    const rangeLo = CASE_RANGES[base];
    if (r < rangeLo) {
      hi = m;
      continue;
    }
    if (r > CASE_RANGES[base + 1]) {
      lo = m + 1;
      continue;
    }
    const delta = CASE_RANGES[base + 2 + kase];
    // In an upper-lower run, even offsets are upper case and odd ones lower case.
    if (delta === UPPER_LOWER) return rangeLo + (((r - rangeLo) & ~1) | kase);
    return r + delta;
  }
  return r;
}

/** unicode.ToLower / unicode.ToUpper of one rune. */
export function mapRune(kase: Case, r: number): number {
  if (r < 0x80) {
    if (kase === LOWER) return r >= 65 && r <= 90 ? r + 32 : r;
    return r >= 97 && r <= 122 ? r - 32 : r;
  }
  return to(kase, r);
}

/** strings.Map(unicode.ToLower or unicode.ToUpper, s), copying unchanged runs as they are. */
function mapString(kase: Case, s: string): string {
  let out = '';
  let copiedUpTo = 0;
  for (let i = 0; i < s.length;) {
    const c = s.charCodeAt(i);
    let r = c; // a lone surrogate half maps to itself
    let width = 1;
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        r = (c - 0xd800) * 0x400 + (d - 0xdc00) + 0x10000;
        width = 2;
      }
    }
    const mapped = mapRune(kase, r);
    if (mapped !== r) {
      out += s.slice(copiedUpTo, i) + String.fromCodePoint(mapped);
      copiedUpTo = i + width;
    }
    i += width;
  }
  return copiedUpTo === 0 ? s : out + s.slice(copiedUpTo);
}

function isAscii(s: string): boolean {
  if (s.length > 32) return !NON_ASCII.test(s);
  let bits = 0;
  for (let i = 0; i < s.length; i++) bits |= s.charCodeAt(i);
  return bits < 0x80;
}

// Both take JavaScript's own mapping when it is Go's: when the text is ASCII (most visitor data), or
// when JavaScript changes nothing (wherever Go changes a rune, JavaScript changes it too; the tests
// check this against Go's table), and map rune by rune otherwise.

/** Go's strings.ToLower. */
export function goToLower(s: string): string {
  if (isAscii(s)) return s.toLowerCase();
  const lower = s.toLowerCase();
  return lower === s ? lower : mapString(LOWER, s);
}

/** Go's strings.ToUpper. */
export function goToUpper(s: string): string {
  if (isAscii(s)) return s.toUpperCase();
  const upper = s.toUpperCase();
  return upper === s ? upper : mapString(UPPER, s);
}

/** Go's string(rune(n)) for an int: the UTF-8 of the code point, or "\uFFFD" when n is not a valid one. */
export function runeToString(n: number | bigint): string {
  if (typeof n !== 'number' || n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return '\uFFFD';
  return String.fromCodePoint(n);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Go orders strings by their UTF-8 bytes. Without surrogates, UTF-16 code-unit order is the same
 * order; with them (code points above U+FFFF, or lone halves that UTF-8 turns into U+FFFD) the
 * bytes are compared.
 */
export function compareStrings(a: string, b: string): number {
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
