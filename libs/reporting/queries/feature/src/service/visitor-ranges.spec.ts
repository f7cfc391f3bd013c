import { visitorRanges } from './report-queries';

const DAY = 86_400_000;

describe('visitorRanges: where a visitor seen on some UTC days can have hits in a window', () => {
  it('joins consecutive days and cuts the first and last to the window', () => {
    const start = 10 * DAY + 5_000;
    const end = 15 * DAY + 7_000;
    expect(visitorRanges([10, 11, 13, 15], start, end)).toEqual([
      { startMs: start, endMs: 12 * DAY },
      { startMs: 13 * DAY, endMs: 14 * DAY },
      { startMs: 15 * DAY, endMs: end },
    ]);
  });

  it('has nothing for no days, and leaves out days outside the window', () => {
    expect(visitorRanges([], 0, DAY)).toEqual([]);
    expect(visitorRanges([3], 4 * DAY, 5 * DAY)).toEqual([]);
  });
});
