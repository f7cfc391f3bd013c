/**
 * Money as exact integers: a decimal text is read into micro-units (10^-6) held in a bigint, and
 * written back without trailing zeros. Never a float.
 */

/** Decimal text >= 0 with up to 12 integer digits and 6 decimals (the project's money format). */
export const MONEY_TEXT = /^\d{1,12}(\.\d{1,6})?$/;
export const MICROS_PER_UNIT = 1_000_000n;
/** Decimals the warehouse keeps. */
export const MONEY_DECIMALS = 6;

const DECIMAL = /^(-)?(\d+)(?:\.(\d{1,6}))?$/;

/** `"12.5"` -> `12500000n`. Throws on text that is not a decimal with at most 6 decimals. */
export function toMicros(text: string): bigint {
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`not a decimal with at most ${MONEY_DECIMALS} decimals: ${JSON.stringify(text)}`);
  const [, minus, whole, fraction = ''] = match;
  // One conversion of the digits (whole then the 6 decimals), not a product of two.
  const micros = BigInt(whole + fraction.padEnd(MONEY_DECIMALS, '0'));
  return minus ? -micros : micros;
}

/** `12500000n` -> `"12.5"`, `0n` -> `"0"`. */
export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  // The digits of the magnitude, split 6 from the right: no bigint division.
  const digits = (negative ? -micros : micros).toString().padStart(MONEY_DECIMALS + 1, '0');
  const whole = digits.slice(0, -MONEY_DECIMALS);
  let end = digits.length;
  while (end > whole.length && digits.charCodeAt(end - 1) === 48 /* 0 */) end--;
  const fraction = digits.slice(whole.length, end);
  return `${negative && micros !== 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A decimal text >= 0 already in canonical form (no leading zero but a lone one, at most 6 decimals,
 * no trailing zero after the point): `normalizeDecimal` gives it back as it is.
 */
const CANONICAL_NON_NEGATIVE = /^(?:0|[1-9]\d*)(?:\.\d{0,5}[1-9])?$/;

/** Whether `text` is a decimal >= 0 in its canonical form (what `normalizeDecimal` answers unchanged). */
export function isCanonicalNonNegative(text: string): boolean {
  return CANONICAL_NON_NEGATIVE.test(text);
}

/** Rewrites a decimal text in its canonical form (`"1.50"` -> `"1.5"`, `"007"` -> `"7"`). */
export function normalizeDecimal(text: string): string {
  return isCanonicalNonNegative(text) ? text : fromMicros(toMicros(text));
}

/** Number of decimals a decimal text carries once canonical (`"1.50"` -> 1). */
export function decimalPlaces(text: string): number {
  const canonical = normalizeDecimal(text);
  const dot = canonical.indexOf('.');
  return dot < 0 ? 0 : canonical.length - dot - 1;
}

/** Division rounded half away from zero. */
function divideRounded(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const quotient = (n * 2n + d) / (d * 2n);
  return negative ? -quotient : quotient;
}

/**
 * `amount` times `percent` / 100, rounded half up to the micro-unit. `percent` is a number with at
 * most 6 decimals (a traffic source's modifier, 0..500).
 */
export function applyPercent(amountMicros: bigint, percent: number): bigint {
  if (!Number.isFinite(percent) || percent < 0) throw new RangeError(`not a percentage: ${percent}`);
  // 100 % (the default modifier) keeps the amount as it is.
  if (percent === 100) return amountMicros;
  const percentMicros = BigInt(Math.round(percent * 1_000_000));
  return divideRounded(amountMicros * percentMicros, 100n * MICROS_PER_UNIT);
}
