import { UNKNOWN } from '../unknown';

/** A time zone as routing reads it at one instant. */
export interface ZoneAttributes {
  /** Display form of the offset: `GMT+7`, `GMT-5`, `GMT+5:30`, `GMT+0`; `unknown` for an unknown zone. */
  timezone: string;
  /** The offset's whole hours, truncated toward zero (+5:30 gives 5, -3:30 gives -3); absent for an unknown zone. */
  utcOffsetHours?: number;
}

const UNKNOWN_ZONE: ZoneAttributes = Object.freeze({ timezone: UNKNOWN });

/**
 * Offsets change only at a zone's transitions, which fall on a quarter hour of UTC (every offset in
 * use is a multiple of 15 minutes, and transitions happen on a quarter hour of local time), so one
 * answer holds for a whole quarter hour of UTC.
 */
const BUCKET_MS = 15 * 60_000;
const MAX_ZONES = 1024;

interface Cached {
  bucket: number;
  attributes: ZoneAttributes;
}

/**
 * The display form and whole-hour offset of IANA time zones (`Europe/Berlin`) at an instant, from
 * Intl: one formatter per zone, one answer per zone and quarter hour. Bounded: at most 1024 zones
 * are remembered.
 */
export class TimeZoneOffsets {
  private readonly formatters = new Map<string, Intl.DateTimeFormat | null>();
  private readonly answers = new Map<string, Cached>();

  at(zone: string, time: number): ZoneAttributes {
    if (!zone || !Number.isFinite(time)) return UNKNOWN_ZONE;
    const bucket = Math.floor(time / BUCKET_MS);
    const cached = this.answers.get(zone);
    if (cached?.bucket === bucket) return cached.attributes;
    const formatter = this.formatterOf(zone);
    if (!formatter) return UNKNOWN_ZONE;
    const minutes = offsetMinutes(formatter, time);
    const attributes: ZoneAttributes =
      minutes === undefined ? UNKNOWN_ZONE : Object.freeze({ timezone: displayOffset(minutes), utcOffsetHours: Math.trunc(minutes / 60) });
    if (this.answers.size >= MAX_ZONES && !this.answers.has(zone)) this.answers.clear();
    this.answers.set(zone, { bucket, attributes });
    return attributes;
  }

  private formatterOf(zone: string): Intl.DateTimeFormat | null {
    let formatter = this.formatters.get(zone);
    if (formatter !== undefined) return formatter;
    try {
      formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'shortOffset' });
    } catch {
      formatter = null; // RangeError: not a time zone Intl knows.
    }
    if (this.formatters.size >= MAX_ZONES) this.formatters.clear();
    this.formatters.set(zone, formatter);
    return formatter;
  }
}

/** `GMT+5:30` -> 330, `GMT-5` -> -300, `GMT` -> 0 (ICU versions differ on zero: `GMT` or `GMT+0`). */
function offsetMinutes(formatter: Intl.DateTimeFormat, time: number): number | undefined {
  const name = formatter.formatToParts(time).find((part) => part.type === 'timeZoneName')?.value;
  const match = name === undefined ? null : /^(?:GMT|UTC)(?:([+-])(\d{1,2})(?::(\d{2}))?)?$/.exec(name);
  if (!match) return undefined;
  if (match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

/** 330 -> `GMT+5:30`, -300 -> `GMT-5`, 0 -> `GMT+0`. */
export function displayOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  const hours = Math.floor(absolute / 60);
  const rest = absolute % 60;
  return `GMT${sign}${hours}${rest === 0 ? '' : `:${String(rest).padStart(2, '0')}`}`;
}
