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
  const micros = BigInt(whole) * MICROS_PER_UNIT + BigInt(fraction.padEnd(MONEY_DECIMALS, '0'));
  return minus ? -micros : micros;
}

/** `12500000n` -> `"12.5"`, `0n` -> `"0"`. */
export function fromMicros(micros: bigint): string {
  const negative = micros < 0n;
  const magnitude = negative ? -micros : micros;
  const whole = magnitude / MICROS_PER_UNIT;
  const fraction = (magnitude % MICROS_PER_UNIT).toString().padStart(MONEY_DECIMALS, '0').replace(/0+$/, '');
  return `${negative && magnitude !== 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Rewrites a decimal text in its canonical form (`"1.50"` -> `"1.5"`, `"007"` -> `"7"`). */
export function normalizeDecimal(text: string): string {
  return fromMicros(toMicros(text));
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
  const percentMicros = BigInt(Math.round(percent * 1_000_000));
  return divideRounded(amountMicros * percentMicros, 100n * MICROS_PER_UNIT);
}
