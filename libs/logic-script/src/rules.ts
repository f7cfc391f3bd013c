// The literal rules of the spec ("Routing script (logic script) language" and "Limits"), in one place so
// the checker, the evaluator, the dry-run validator and the catalog cannot drift apart. The rules about
// visitors and route keys belong to the visitor-context model shared with conditions.
export {
  FALLBACK_ROUTE_KEY,
  FIELD_NAME_PATTERN,
  isFieldName,
  isRouteKey,
  isUtcOffsetHours,
  MAX_UTC_OFFSET_HOURS,
  MIN_UTC_OFFSET_HOURS,
  ROUTE_KEY_PATTERN,
} from '@funnel/visitor-context';

/** Maximum size of a script, in UTF-8 bytes. */
export const MAX_CODE_BYTES = 10240;

/** HHMM as an integer: 0 (00:00) .. 2359 (23:59), minutes below 60. */
export function isClockTime(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 2359 && (value as number) % 100 < 60;
}

/** UTF-8 length, as the size limit counts it (lone surrogates count as U+FFFD, 3 bytes). */
export function utf8ByteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
