import { bucketFromText, bucketOf, bucketText } from './buckets';
import { offsetIn, offsetPeriods } from './zone-periods';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

/** Local-day buckets of one hit per UTC hour over [start, end), counted per day text. */
function hitsPerLocalDay(zone: string, start: string, end: string): Record<string, number> {
  const periods = offsetPeriods(zone, at(start), at(end));
  const days: Record<string, number> = {};
  for (let ms = at(start); ms < at(end); ms += HOUR) {
    const day = bucketText('date', bucketOf('date', ms + offsetIn(periods, ms)));
    days[day] = (days[day] ?? 0) + 1;
  }
  return days;
}

describe('time-zone offsets per DST period', () => {
  it('America/New_York: the spring-forward day has 23 hours, the fall-back day 25', () => {
    const spring = hitsPerLocalDay('America/New_York', '2026-03-07T05:00:00Z', '2026-03-10T04:00:00Z');
    expect(spring).toEqual({ '2026-03-07': 24, '2026-03-08': 23, '2026-03-09': 24 });
    const fall = hitsPerLocalDay('America/New_York', '2026-10-31T04:00:00Z', '2026-11-03T05:00:00Z');
    expect(fall).toEqual({ '2026-10-31': 24, '2026-11-01': 25, '2026-11-02': 24 });
  });

  it('finds the exact instants of both changes of a year', () => {
    const periods = offsetPeriods('America/New_York', at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'));
    expect(periods).toEqual([
      { fromMs: at('2026-01-01T00:00:00Z'), offsetMs: -5 * HOUR },
      { fromMs: at('2026-03-08T07:00:00Z'), offsetMs: -4 * HOUR },
      { fromMs: at('2026-11-01T06:00:00Z'), offsetMs: -5 * HOUR },
    ]);
  });

  it('Australia/Lord_Howe: half-hour DST (+10:30 in winter, +11 in summer)', () => {
    const periods = offsetPeriods('Australia/Lord_Howe', at('2026-03-01T00:00:00Z'), at('2026-12-01T00:00:00Z'));
    expect(periods.map((p) => p.offsetMs / 60_000)).toEqual([660, 630, 660]);
    // Back to standard time on the first Sunday of April at 02:00 local (15:00 UTC the day before).
    expect(new Date(periods[1].fromMs).toISOString()).toBe('2026-04-04T15:00:00.000Z');
    // The day DST ends has 24.5 hours: count half-hours.
    const half = 1_800_000;
    let count = 0;
    for (let ms = at('2026-04-04T00:00:00Z'); ms < at('2026-04-07T00:00:00Z'); ms += half) {
      if (bucketText('date', bucketOf('date', ms + offsetIn(periods, ms))) === '2026-04-05') count++;
    }
    expect(count).toBe(49);
  });

  it('a zone without DST and UTC have one period', () => {
    expect(offsetPeriods('Asia/Kolkata', at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'))).toEqual([
      { fromMs: at('2026-01-01T00:00:00Z'), offsetMs: 5.5 * HOUR },
    ]);
    expect(offsetPeriods('UTC', at('2026-01-01T00:00:00Z'), at('2026-12-31T00:00:00Z'))).toEqual([{ fromMs: at('2026-01-01T00:00:00Z'), offsetMs: 0 }]);
  });

  it('refuses a name that is not an IANA zone', () => {
    expect(() => offsetPeriods('Mars/Olympus', 0, HOUR)).toThrow(
      expect.objectContaining({ status: 400, details: [expect.objectContaining({ field: 'timeZone' })] }),
    );
  });
});

describe('time buckets', () => {
  const local = at('2026-03-09T13:47:12Z'); // a Monday
  it('buckets a local time by date, minute, 15-minute block, week day and hour', () => {
    expect(bucketText('date', bucketOf('date', local))).toBe('2026-03-09');
    expect(bucketText('hhmm', bucketOf('hhmm', local))).toBe('13:47');
    expect(bucketText('block15', bucketOf('block15', local))).toBe('13:45');
    expect(bucketText('weekday', bucketOf('weekday', local))).toBe('Monday');
    expect(bucketText('hour', bucketOf('hour', local))).toBe('13');
  });

  it('reads bucket texts back and refuses others', () => {
    expect(bucketFromText('date', '2026-03-09', 'f')).toBe(bucketOf('date', local));
    expect(bucketFromText('block15', '13:45', 'f')).toBe(55);
    expect(bucketFromText('weekday', 'monday', 'f')).toBe(0);
    for (const [unit, text] of [
      ['date', '2026-02-30'],
      ['block15', '13:50'],
      ['hhmm', '24:00'],
      ['weekday', 'Funday'],
      ['hour', '24'],
    ] as const) {
      expect(() => bucketFromText(unit, text, 'f')).toThrow(expect.objectContaining({ status: 400 }));
    }
  });
});
