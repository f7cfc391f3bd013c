// The literal rules of the spec ("Routing script (logic script) language" and "Limits"), in one place so
// the checker, the evaluator, the dry-run validator and the catalog cannot drift apart.

/** Maximum size of a script, in UTF-8 bytes. */
export const MAX_CODE_BYTES = 10240;

/** A route key: what a script returns and what a connection's `onRouteKeys` lists. */
export const ROUTE_KEY_PATTERN = /^[a-z0-9_]{1,64}$/;

/** Names passed to trackingField and dataBuffer. */
export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_ -]{1,64}$/;

/** The key every funnel logic node connects; the runtime routes here whenever the script cannot decide. */
export const FALLBACK_ROUTE_KEY = 'default';

/** Whole-hour UTC offsets that exist on Earth (UTC-12 .. UTC+14). */
export const MIN_UTC_OFFSET_HOURS = -12;
export const MAX_UTC_OFFSET_HOURS = 14;

export function isRouteKey(value: unknown): boolean {
  return typeof value === 'string' && ROUTE_KEY_PATTERN.test(value);
}

export function isFieldName(value: unknown): boolean {
  return typeof value === 'string' && FIELD_NAME_PATTERN.test(value);
}

/** HHMM as an integer: 0 (00:00) .. 2359 (23:59), minutes below 60. */
export function isClockTime(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 2359 && (value as number) % 100 < 60;
}

export function isUtcOffsetHours(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= MIN_UTC_OFFSET_HOURS && (value as number) <= MAX_UTC_OFFSET_HOURS;
}

/** UTF-8 length, as the size limit counts it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
