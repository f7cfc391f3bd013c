import { ServiceError } from '@funnel/contracts';

/** From `fromMs` (UTC epoch ms) on, local time is UTC + `offsetMs`, until the next period. */
export interface OffsetPeriod {
  fromMs: number;
  offsetMs: number;
}

/** The step between offset probes: tzdata never changes a zone's offset twice within it. */
const STEP_MS = 6 * 3_600_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** True when `zone` is an IANA time-zone name this runtime knows. */
export function isTimeZone(zone: string): boolean {
  try {
    formatterOf(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `ms`, in ms (local wall time minus UTC), to the second. */
export function offsetAt(zone: string, ms: number): number {
  const parts: Record<string, number> = {};
  for (const part of formatterOf(zone).formatToParts(new Date(ms))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  const second = Math.floor(ms / 1000) * 1000;
  return wall - second;
}

/** The first ms in (lo, hi] whose offset differs from lo's (offsets at lo and hi differ). */
function transitionBetween(zone: string, lo: number, hi: number, before: number): number {
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (offsetAt(zone, mid) === before) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * The zone's offsets over [startMs, endMs): one period per offset, found by stepping over the window
 * six hours at a time and bisecting where the offset changes (DST changes and other tzdata transitions;
 * zones change offsets at most every few weeks, never twice within six hours).
 */
export function offsetPeriods(zone: string, startMs: number, endMs: number): OffsetPeriod[] {
  if (!isTimeZone(zone)) throw ServiceError.invalidField('timeZone', 'isTimeZone', `timeZone must be an IANA time zone name: ${zone}`);
  let current = offsetAt(zone, startMs);
  const periods: OffsetPeriod[] = [{ fromMs: startMs, offsetMs: current }];
  for (let at = startMs; at < endMs;) {
    const next = Math.min(at + STEP_MS, endMs);
    const offset = offsetAt(zone, next);
    if (offset !== current) {
      const fromMs = transitionBetween(zone, at, next, current);
      const offsetMs = offsetAt(zone, fromMs);
      if (fromMs < endMs) periods.push({ fromMs, offsetMs });
      current = offsetMs;
      at = fromMs;
      continue;
    }
    at = next;
  }
  return periods;
}

/** The offset of `ms` among `periods` (the first period's offset before it). */
export function offsetIn(periods: readonly OffsetPeriod[], ms: number): number {
  let offset = periods[0].offsetMs;
  for (const period of periods) {
    if (ms < period.fromMs) break;
    offset = period.offsetMs;
  }
  return offset;
}
