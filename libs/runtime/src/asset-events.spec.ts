import { loadConfig } from '@funnel/platform';
import { assetEventsConfig, assetEventsOptionsFrom } from './asset-events';

describe('asset event stream configuration', () => {
  it('keeps events 7 days and drops copies of an event id for 2 minutes by default', () => {
    expect(assetEventsOptionsFrom(loadConfig(assetEventsConfig, {}))).toEqual({ maxAgeMs: 7 * 86_400_000, duplicateWindowMs: 120_000, readers: [] });
  });

  it('reads durations as a whole number and a unit s, m, h or d', () => {
    const config = loadConfig(assetEventsConfig, { ASSET_EVENTS_MAX_AGE: '36h', ASSET_EVENTS_DUPLICATE_WINDOW: '90s' });
    expect(assetEventsOptionsFrom(config)).toEqual({ maxAgeMs: 36 * 3_600_000, duplicateWindowMs: 90_000, readers: [] });
    expect(loadConfig(assetEventsConfig, { ASSET_EVENTS_MAX_AGE: '30m' }).ASSET_EVENTS_MAX_AGE).toBe(1_800_000);
  });

  it('stops the process with one line on a value it cannot read or out of bounds', () => {
    for (const bad of ['7', '7 days', '1.5h', '-1d', '30s', '4000d']) {
      expect(() => loadConfig(assetEventsConfig, { ASSET_EVENTS_MAX_AGE: bad })).toThrow(
        `Invalid configuration: ASSET_EVENTS_MAX_AGE must be a duration from 1m to 3650d as a whole number and a unit s, m, h or d, e.g. 7d or 36h (default 7d), got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reads the readers as comma-separated names, each once, that are one subject token', () => {
    expect(loadConfig(assetEventsConfig, { ASSET_EVENTS_READERS: ' events-reader, search_2 ' }).ASSET_EVENTS_READERS).toEqual(['events-reader', 'search_2']);
    for (const bad of ['a.b', 'a,a', 'x>', 'with space']) {
      expect(() => loadConfig(assetEventsConfig, { ASSET_EVENTS_READERS: bad })).toThrow(
        `Invalid configuration: ASSET_EVENTS_READERS must be comma-separated reader names`,
      );
    }
  });

  it('refuses a duplicate window longer than the stream keeps events', () => {
    const config = loadConfig(assetEventsConfig, { ASSET_EVENTS_MAX_AGE: '5m', ASSET_EVENTS_DUPLICATE_WINDOW: '10m' });
    expect(() => assetEventsOptionsFrom(config)).toThrow('Invalid configuration: ASSET_EVENTS_DUPLICATE_WINDOW must be at most ASSET_EVENTS_MAX_AGE');
  });
});
