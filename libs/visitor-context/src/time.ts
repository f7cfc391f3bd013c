// Calendar arithmetic on epoch milliseconds. Pure integer math instead of Date objects: an evaluation
// reads the clock a few times per call, and this allocates nothing and cannot depend on the host zone.

export const MS_PER_MINUTE = 60_000;
export const MS_PER_HOUR = 3_600_000;
export const MS_PER_DAY = 86_400_000;
export const MINUTES_PER_DAY = 1440;

export const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

function floorMod(value: number, modulus: number): number {
  const r = value % modulus;
  return r < 0 ? r + modulus : r;
}

export function hourOf(ms: number): number {
  return floorMod(Math.floor(ms / MS_PER_HOUR), 24);
}

export function minuteOf(ms: number): number {
  return floorMod(Math.floor(ms / MS_PER_MINUTE), 60);
}

/** Sunday is 0 (1970-01-01 was a Thursday). */
export function weekdayOf(ms: number): number {
  return floorMod(Math.floor(ms / MS_PER_DAY) + 4, 7);
}

/** Minutes since local midnight at a whole-hour offset from UTC. */
export function minuteOfDay(ms: number, utcOffsetHours: number): number {
  return floorMod(Math.floor((ms + utcOffsetHours * MS_PER_HOUR) / MS_PER_MINUTE), MINUTES_PER_DAY);
}

export function localWeekday(ms: number, utcOffsetHours: number): number {
  return weekdayOf(ms + utcOffsetHours * MS_PER_HOUR);
}

/** HHMM (e.g. 930 for 09:30) to minutes since midnight. */
export function clockMinutes(hhmm: number): number {
  return Math.floor(hhmm / 100) * 60 + (hhmm % 100);
}

/**
 * Start inclusive, end exclusive; an end earlier than the start wraps past midnight (2200..600 is the
 * night); start equal to end is an empty range.
 */
export function inClockRange(minute: number, start: number, end: number): boolean {
  return start <= end ? minute >= start && minute < end : minute >= start || minute < end;
}

export interface CivilDate {
  year: number;
  /** January is 1. */
  month: number;
  day: number;
}

/** Proleptic Gregorian date of a UTC instant (H. Hinnant's days-to-civil algorithm). */
export function civilDateOf(ms: number): CivilDate {
  const z = Math.floor(ms / MS_PER_DAY) + 719468;
  const era = Math.floor(z / 146097);
  const dayOfEra = z - era * 146097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36524) - Math.floor(dayOfEra / 146096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}
