import { REPORTING_QUERY_LIMITS, ServiceError } from '@funnel/contracts';

/** A query's time window, UTC epoch ms: start inclusive, end exclusive. */
export interface TimeWindow {
  startMs: number;
  endMs: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const DAY_MS = 86_400_000;

/** An RFC 3339 time (1970 or later) as epoch ms; a 400 naming `field` otherwise. */
export function parseTime(value: unknown, field: string): number {
  const ms = typeof value === 'string' && RFC3339.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms) || ms < 0)
    throw ServiceError.invalidField(field, 'isRfc3339', `${field} must be an RFC 3339 time from 1970 on, e.g. 2026-03-08T00:00:00Z`);
  return ms;
}

/** `timeStart` (inclusive) .. `timeEnd` (exclusive), after it and at most 366 days later. */
export function parseWindow(request: { timeStart?: unknown; timeEnd?: unknown }): TimeWindow {
  const startMs = parseTime(request.timeStart, 'timeStart');
  const endMs = parseTime(request.timeEnd, 'timeEnd');
  if (endMs <= startMs) throw ServiceError.invalidField('timeEnd', 'isAfterTimeStart', 'timeEnd must be after timeStart');
  if (endMs - startMs > REPORTING_QUERY_LIMITS.maxWindowDays * DAY_MS)
    throw ServiceError.invalidField('timeEnd', 'maxWindow', `the window may span at most ${REPORTING_QUERY_LIMITS.maxWindowDays} days`);
  return { startMs, endMs };
}
