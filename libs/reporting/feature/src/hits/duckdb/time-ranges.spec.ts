import { MAX_RANGES, RANGE_GAP_MS, timeRanges, timeRangesSql } from './time-ranges';

const HOUR = 3_600_000;

describe('timeRanges', () => {
  it('covers times without a long gap with one span, whatever their order', () => {
    expect(timeRanges([5_000, 1_000, 3_000, 1_000])).toEqual([[1_000, 5_000]]);
    expect(timeRanges([7])).toEqual([[7, 7]]);
    expect(timeRanges([])).toEqual([]);
  });

  it('splits at each gap of RANGE_GAP_MS or more', () => {
    const day = Date.UTC(2026, 0, 10);
    expect(timeRanges([day + 10, day - 30 * 24 * HOUR, day, day + RANGE_GAP_MS - 1, day + 2 * RANGE_GAP_MS])).toEqual([
      [day - 30 * 24 * HOUR, day - 30 * 24 * HOUR],
      [day, day + RANGE_GAP_MS - 1],
      [day + 2 * RANGE_GAP_MS, day + 2 * RANGE_GAP_MS],
    ]);
  });

  it('keeps the longest gaps when there are more than MAX_RANGES - 1', () => {
    // Gaps of 2..(MAX_RANGES + 4) hours between consecutive times: the shortest are merged.
    const times = [0];
    for (let gap = 2; gap <= MAX_RANGES + 4; gap++) times.push(times[times.length - 1] + gap * HOUR);
    const ranges = timeRanges(times);
    expect(ranges).toHaveLength(MAX_RANGES);
    // The 4 shortest gaps (2-5 hours) are merged: the first span holds the first 5 times.
    expect(ranges[0]).toEqual([0, times[4]]);
    expect(ranges.slice(1).every(([first, last]) => first === last)).toBe(true);
    // Every time is covered, and no span covers another's.
    for (const time of times) expect(ranges.filter(([first, last]) => first <= time && time <= last)).toHaveLength(1);
  });
});

describe('timeRangesSql', () => {
  it('is a single BETWEEN for one span, an OR of them for several, numbered from the first parameter', () => {
    expect(timeRangesSql('time_ms', [[1, 2]], 3)).toEqual({ sql: 'time_ms BETWEEN $3 AND $4', params: [1n, 2n] });
    expect(
      timeRangesSql(
        'hits.time_ms',
        [
          [1, 2],
          [10, 10],
        ],
        2,
      ),
    ).toEqual({ sql: '(hits.time_ms BETWEEN $2 AND $3 OR hits.time_ms BETWEEN $4 AND $5)', params: [1n, 2n, 10n, 10n] });
  });
});
