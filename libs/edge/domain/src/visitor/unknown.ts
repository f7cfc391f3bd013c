/** What a visitor attribute holds when the edge could not resolve it (the spec's word). */
export const UNKNOWN = 'unknown';

/** The value if it is a non-empty string, else `unknown`. */
export function knownOr(value: unknown, fallback: string = UNKNOWN): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}
