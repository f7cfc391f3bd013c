// The literal rules of the spec that describe a visitor and where it is routed ("Routing script (logic
// script) language"), shared by logic scripts, conditions and the dry-run validator so they cannot drift apart.

// Declared in @funnel/contracts, which the API document is generated from.
export { FALLBACK_ROUTE_KEY, FIELD_NAME_PATTERN, ROUTE_KEY_PATTERN } from '@funnel/contracts';

/** Whole-hour UTC offsets that exist on Earth (UTC-12 .. UTC+14). */
export const MIN_UTC_OFFSET_HOURS = -12;
export const MAX_UTC_OFFSET_HOURS = 14;

// The two tests below are ROUTE_KEY_PATTERN and FIELD_NAME_PATTERN as loops: the script checker runs
// them on every literal it sees, and a loop over a few characters costs less than a regular expression.

/** ROUTE_KEY_PATTERN: 1 to 64 of a-z 0-9 _. */
export function isRouteKey(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95)) return false;
  }
  return true;
}

/** FIELD_NAME_PATTERN: 1 to 64 of A-Z a-z 0-9 _ space -. */
export function isFieldName(value: unknown): boolean {
  if (typeof value !== 'string' || value.length === 0 || value.length > 64) return false;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 32 || c === 45)) return false;
  }
  return true;
}

export function isUtcOffsetHours(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= MIN_UTC_OFFSET_HOURS && (value as number) <= MAX_UTC_OFFSET_HOURS;
}
