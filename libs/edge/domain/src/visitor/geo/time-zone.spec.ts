import { TimeZoneOffsets, displayOffset } from './time-zone';

const at = (iso: string) => Date.parse(iso);

describe('TimeZoneOffsets', () => {
  it.each([
    ['Europe/Berlin', '2026-01-15T12:00:00Z', 'GMT+1', 1],
    ['Europe/Berlin', '2026-07-15T12:00:00Z', 'GMT+2', 2],
    ['America/New_York', '2026-01-15T12:00:00Z', 'GMT-5', -5],
    ['America/New_York', '2026-07-15T12:00:00Z', 'GMT-4', -4],
    ['Asia/Kolkata', '2026-07-15T12:00:00Z', 'GMT+5:30', 5],
    ['America/St_Johns', '2026-01-15T12:00:00Z', 'GMT-3:30', -3],
    ['Asia/Kathmandu', '2026-01-15T12:00:00Z', 'GMT+5:45', 5],
    ['Pacific/Kiritimati', '2026-01-15T12:00:00Z', 'GMT+14', 14],
    ['UTC', '2026-01-15T12:00:00Z', 'GMT+0', 0],
    ['Europe/London', '2026-01-15T12:00:00Z', 'GMT+0', 0],
  ])('shows %s at %s as %s, %i whole hours', (zone, time, timezone, utcOffsetHours) => {
    expect(new TimeZoneOffsets().at(zone, at(time))).toEqual({ timezone, utcOffsetHours });
  });

  it('follows a daylight-saving change from one quarter hour to the next', () => {
    const zones = new TimeZoneOffsets();
    // Berlin moves from GMT+1 to GMT+2 at 01:00 UTC on 2026-03-29.
    expect(zones.at('Europe/Berlin', at('2026-03-29T00:59:59Z')).timezone).toBe('GMT+1');
    expect(zones.at('Europe/Berlin', at('2026-03-29T01:00:00Z')).timezone).toBe('GMT+2');
    expect(zones.at('Europe/Berlin', at('2026-03-29T00:30:00Z')).timezone).toBe('GMT+1');
  });

  it.each(['', 'Nowhere/City', 'not a zone'])('is unknown, without an offset, for the zone %p', (zone) => {
    expect(new TimeZoneOffsets().at(zone, at('2026-01-15T12:00:00Z'))).toEqual({ timezone: 'unknown' });
  });

  it('is unknown at a time that is no time', () => {
    expect(new TimeZoneOffsets().at('Europe/Berlin', NaN)).toEqual({ timezone: 'unknown' });
  });
});

describe('displayOffset', () => {
  it.each([
    [0, 'GMT+0'],
    [420, 'GMT+7'],
    [-300, 'GMT-5'],
    [330, 'GMT+5:30'],
    [-570, 'GMT-9:30'],
  ])('shows %i minutes as %s', (minutes, display) => {
    expect(displayOffset(minutes)).toBe(display);
  });
});
