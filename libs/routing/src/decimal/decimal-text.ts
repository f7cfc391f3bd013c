// Money as decimal text (as hits and reporting updates carry it), computed exactly in millionths.

const DECIMAL = /^(\d{1,15})(?:\.(\d+))?$/;
const SCALE = 1_000_000n;

/** Millionths of a non-negative decimal text (more than 6 decimals are rounded half up); undefined when it is not one. */
export function parseMicros(text: string): bigint | undefined {
  const match = DECIMAL.exec(text.trim());
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  let micros = BigInt(match[1]) * SCALE + BigInt((fraction.slice(0, 6) || '0').padEnd(6, '0'));
  if (fraction.length > 6 && fraction.charCodeAt(6) >= 53 /* '5' */) micros += 1n;
  return micros;
}

/** Decimal text of millionths, without trailing zeros: 250000n -> "0.25", 3000000n -> "3". */
export function microsText(micros: bigint): string {
  const whole = micros / SCALE;
  const fraction = (micros % SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** Whether text is a non-negative decimal the engine can carry (what parseMicros reads; tested, not parsed). */
export function isDecimalText(text: unknown): text is string {
  return typeof text === 'string' && DECIMAL.test(text.trim());
}

/** Decimal text as microsText writes it: no leading zero but a lone one, at most 6 decimals, no trailing zero (parsed and written back, it is itself). */
const CANONICAL = /^(?:0|[1-9]\d{0,14})(?:\.\d{0,5}[1-9])?$/;

/** The decimal text of a cost scaled by a percentage (100 keeps it), rounded half up to 6 decimals. */
export function applyPercent(text: string, percent: number): string {
  // Most costs are kept as given (100%), most already in canonical form: answered without a bigint.
  if (percent === 100 && CANONICAL.test(text)) return text;
  const micros = parseMicros(text) ?? 0n;
  if (percent === 100) return microsText(micros);
  // The percentage with 4 decimals: micros * p / (100 * 10^4), rounded half up.
  const basis = BigInt(Math.round(Math.max(0, percent) * 10_000));
  const divisor = 1_000_000n;
  return microsText((micros * basis + divisor / 2n) / divisor);
}

/** A non-negative number (an offer's payout) as decimal text with at most 6 decimals; 0 for anything else. */
export function numberText(value: unknown): string {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return '0';
  return microsText(parseMicros(value.toFixed(6)) ?? 0n);
}
