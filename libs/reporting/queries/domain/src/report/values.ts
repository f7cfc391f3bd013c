import type { ReportCell } from '@funnel/contracts';
import { MICROS_PER_UNIT, toMicros } from '@funnel/reporting-domain';
import { BASE_BY_KEY, type MetricDefinition, type MetricExpression } from '../catalogue/metrics';

/** A row's base aggregates as the engines answer them: counts as numbers (or integer text), money as decimal text. */
export type BaseRow = Readonly<Record<string, unknown>>;

/** An exact rational number in micro-units (value = num / den / 10^6). */
interface Rational {
  num: bigint;
  den: bigint;
}

/** A base aggregate in micro-units: money text read exactly, counts scaled. */
function baseMicros(key: string, row: BaseRow): bigint {
  const definition = BASE_BY_KEY.get(key);
  if (!definition) throw new Error(`unknown base aggregate ${key}`);
  const value = row[key];
  if (value === null || value === undefined || value === '') return 0n;
  if (definition.money) return toMicros(typeof value === 'string' ? value : String(value));
  return BigInt(value as string | number | bigint) * MICROS_PER_UNIT;
}

function evaluate(expression: MetricExpression, row: BaseRow): Rational | null {
  if ('base' in expression) return { num: baseMicros(expression.base, row), den: 1n };
  if ('minus' in expression) {
    const a = evaluate(expression.minus[0], row);
    const b = evaluate(expression.minus[1], row);
    if (!a || !b) return null;
    return { num: a.num * b.den - b.num * a.den, den: a.den * b.den };
  }
  const a = evaluate(expression.divide[0], row);
  const b = evaluate(expression.divide[1], row);
  if (!a || !b || b.num === 0n) return null;
  // (a.num / a.den) / (b.num / b.den), kept in micro-units.
  const num = a.num * b.den * MICROS_PER_UNIT;
  const den = a.den * b.num;
  return den < 0n ? { num: -num, den: -den } : { num, den };
}

/** Division rounded half away from zero. */
function rounded(num: bigint, den: bigint): bigint {
  const negative = num < 0n !== den < 0n;
  const n = num < 0n ? -num : num;
  const d = den < 0n ? -den : den;
  const quotient = (n * 2n + d) / (d * 2n);
  return negative ? -quotient : quotient;
}

/** Micro-units as decimal text with `places` decimals (rounded half away from zero). */
function decimalText(micros: bigint, places: number): string {
  const scaled = rounded(micros, 10n ** BigInt(6 - places));
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places);
  return `${negative ? '-' : ''}${whole}${places ? `.${fraction}` : ''}`;
}

/**
 * A metric's cell from its row's base aggregates. Raw values: counts as numbers; money as exact
 * decimal text with 6 places (sums and P/L exact, quotients rounded half away from zero); ratios as
 * numbers (0.25 for 25 %). N/A (a division by zero): raw null, formatted "N/A". Formatted: counts as
 * integers, money with 2 decimals, ratios as percentages with 2 decimals ("25.00%").
 */
export function metricCell(metric: MetricDefinition, row: BaseRow): ReportCell {
  const value = evaluate(metric.expression, row);
  if (!value) return { raw: null, formatted: 'N/A' };
  if (metric.type === 'count') {
    const n = Number(rounded(value.num, value.den * MICROS_PER_UNIT));
    return { raw: n, formatted: String(n) };
  }
  if (metric.type === 'money') {
    const micros = rounded(value.num, value.den);
    return { raw: decimalText(micros, 6), formatted: decimalText(micros, 2) };
  }
  const ratio = Number(value.num) / Number(value.den) / 1e6;
  const percentMicros = rounded(value.num * 100n, value.den);
  return { raw: ratio, formatted: `${decimalText(percentMicros, 2)}%` };
}
