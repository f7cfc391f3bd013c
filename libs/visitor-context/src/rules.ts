// The literal rules of the spec that describe a visitor and where it is routed ("Routing script (logic
// script) language"), shared by logic scripts, conditions and the dry-run validator so they cannot drift apart.

/** A route key: what a script or a condition route answers and what a connection's `onRouteKeys` lists. */
export const ROUTE_KEY_PATTERN = /^[a-z0-9_]{1,64}$/;

/** Names passed to trackingField and dataBuffer. */
export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_ -]{1,64}$/;

/** The key every funnel logic node connects; the runtime routes here whenever nothing else decides. */
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

export function isUtcOffsetHours(value: unknown): boolean {
  return Number.isInteger(value) && (value as number) >= MIN_UTC_OFFSET_HOURS && (value as number) <= MAX_UTC_OFFSET_HOURS;
}
