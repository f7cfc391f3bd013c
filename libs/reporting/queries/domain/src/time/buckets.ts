import { ServiceError } from '@funnel/contracts';
import type { TimeUnit } from '../catalogue/attributes';

export const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** Week days from Monday (bucket 0), as Week-Parting shows them. */
export const WEEK_DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/**
 * How each time unit buckets a local time (UTC epoch ms plus the zone's offset): an integer
 * division of the local ms, then a modulo; the engines run the same arithmetic.
 * date: days since 1970-01-01; hhmm: minute of the day; block15: 15-minute block of the day;
 * weekday: day of the week from Monday (1970-01-01 was a Thursday, 3); hour: hour of the day.
 */
export const TIME_BUCKETS: Readonly<Record<TimeUnit, { divisor: number; modulo?: number; shift?: number }>> = {
  date: { divisor: DAY_MS },
  hhmm: { divisor: MINUTE_MS, modulo: 1440 },
  block15: { divisor: 15 * MINUTE_MS, modulo: 96 },
  weekday: { divisor: DAY_MS, shift: 3, modulo: 7 },
  hour: { divisor: 60 * MINUTE_MS, modulo: 24 },
};

/** The bucket of a local time (ms >= 0). */
export function bucketOf(unit: TimeUnit, localMs: number): number {
  const { divisor, modulo, shift = 0 } = TIME_BUCKETS[unit];
  const n = Math.floor(localMs / divisor) + shift;
  return modulo === undefined ? n : n % modulo;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** A bucket as a report shows it (and as topLevelFilters name it): `2026-03-08`, `13:45`, `Monday`, `13`. */
export function bucketText(unit: TimeUnit, bucket: number): string {
  switch (unit) {
    case 'date':
      return new Date(bucket * DAY_MS).toISOString().slice(0, 10);
    case 'hhmm':
      return `${pad(Math.floor(bucket / 60))}:${pad(bucket % 60)}`;
    case 'block15':
      return `${pad(Math.floor(bucket / 4))}:${pad((bucket % 4) * 15)}`;
    case 'weekday':
      return WEEK_DAYS[bucket];
    case 'hour':
      return pad(bucket);
  }
}

/** The bucket a report's text names (the inverse of bucketText); a 400 when it names none. */
export function bucketFromText(unit: TimeUnit, text: string, field: string): number {
  const bad = () => ServiceError.invalidField(field, 'timeBucket', `${field}: ${JSON.stringify(text.slice(0, 64))} is not a ${unit} value`);
  let bucket: number | undefined;
  const hhmm = /^(\d{2}):(\d{2})$/.exec(text);
  switch (unit) {
    case 'date': {
      const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
      const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
      if (Number.isFinite(ms) && ms >= 0) bucket = ms / DAY_MS;
      break;
    }
    case 'hhmm':
      if (hhmm) bucket = Number(hhmm[1]) * 60 + Number(hhmm[2]);
      break;
    case 'block15':
      if (hhmm && Number(hhmm[2]) % 15 === 0) bucket = Number(hhmm[1]) * 4 + Number(hhmm[2]) / 15;
      break;
    case 'weekday': {
      const index = WEEK_DAYS.findIndex((day) => day.toLowerCase() === text.trim().toLowerCase());
      if (index >= 0) bucket = index;
      break;
    }
    case 'hour':
      if (/^\d{1,2}$/.test(text)) bucket = Number(text);
      break;
  }
  const { modulo } = TIME_BUCKETS[unit];
  if (
    bucket === undefined ||
    !Number.isInteger(bucket) ||
    (modulo !== undefined && bucket >= modulo) ||
    bucketText(unit, bucket).toLowerCase() !== text.trim().toLowerCase()
  )
    throw bad();
  return bucket;
}
