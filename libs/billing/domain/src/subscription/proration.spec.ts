import { nextPeriod, periodContaining, prorate, roundCents, totalCents } from './proration';

const utc = (text: string) => Date.parse(text) / 1000;

describe('billing periods', () => {
  it.each([
    ['2025-01-16T12:34:56Z', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z'],
    ['2025-01-01T00:00:00Z', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z'],
    ['2025-01-31T23:59:59Z', '2025-01-01T00:00:00Z', '2025-02-01T00:00:00Z'],
    ['2024-02-29T08:00:00Z', '2024-02-01T00:00:00Z', '2024-03-01T00:00:00Z'],
    ['2025-12-31T23:59:59Z', '2025-12-01T00:00:00Z', '2026-01-01T00:00:00Z'],
  ])('%s lies in the calendar month [%s, %s)', (at, start, end) => {
    expect(periodContaining(utc(at))).toEqual({ start: utc(start), end: utc(end) });
  });

  it('the next period follows without a gap', () => {
    expect(nextPeriod(periodContaining(utc('2025-12-05T00:00:00Z')))).toEqual({ start: utc('2026-01-01T00:00:00Z'), end: utc('2026-02-01T00:00:00Z') });
  });

  it('rounds cents half away from zero', () => {
    expect([roundCents(2.5), roundCents(-2.5), roundCents(2.49), roundCents(-2.51), roundCents(0)]).toEqual([3, -3, 2, -3, 0]);
  });
});

describe('proration to the second, to the cent', () => {
  const january = periodContaining(utc('2025-01-10T00:00:00Z')); // 31 days = 2,678,400 s
  const february = periodContaining(utc('2025-02-10T00:00:00Z')); // 28 days = 2,419,200 s
  const base = { addonId: 'extra-custom-domain', addonName: 'Extra custom domain', unitPriceCents: 500 };

  it.each([
    // what, unit price, from, to, at, period, [credit, charge], total
    ['add 1 at mid-January (16 of 31 days left)', 500, 0, 1, '2025-01-16T00:00:00Z', january, [258], 258],
    ['1 -> 3 at mid-January', 500, 1, 3, '2025-01-16T00:00:00Z', january, [-258, 774], 516],
    ['3 -> 1 at mid-January', 500, 3, 1, '2025-01-16T00:00:00Z', january, [-774, 258], -516],
    ['remove 1 at mid-January', 500, 1, 0, '2025-01-16T00:00:00Z', january, [-258], -258],
    ['add 1 at the very start of the period (the whole month)', 500, 0, 1, '2025-01-01T00:00:00Z', january, [500], 500],
    ['add 1 one second before the end', 500, 0, 1, '2025-01-31T23:59:59Z', january, [0], 0],
    ['add 1 with 10 hours left (1/74.4 of the month)', 900, 0, 1, '2025-01-31T14:00:00Z', january, [12], 12],
    ['events-10m 0 -> 1 on 2025-02-15 12:00 (13.5 of 28 days)', 5_000, 0, 1, '2025-02-15T12:00:00Z', february, [2411], 2411],
    ['events-50m 0 -> 1 on 2025-02-15 12:00', 20_000, 0, 1, '2025-02-15T12:00:00Z', february, [9643], 9643],
    ['extra-user 2 -> 5 at 2025-01-20 06:30:15 (1,013,385 s left)', 900, 2, 5, '2025-01-20T06:30:15Z', january, [-681, 1703], 1022],
    ['1000 domains -> 999 at mid-January', 500, 1000, 999, '2025-01-16T00:00:00Z', january, [-258065, 257806], -259],
    ['no change: no line', 500, 2, 2, '2025-01-16T00:00:00Z', january, [], 0],
    ['at or after the end: no line', 500, 0, 1, '2025-02-01T00:00:00Z', january, [], 0],
  ] as const)('%s', (_what, unitPriceCents, fromQuantity, toQuantity, at, period, amounts, total) => {
    const lines = prorate({ ...base, unitPriceCents, fromQuantity, toQuantity, at: utc(at), period });
    expect(lines.map((line) => line.amount_cents)).toEqual(amounts);
    expect(totalCents(lines)).toBe(total);
    for (const line of lines) expect(line).toMatchObject({ addon_id: 'extra-custom-domain', period_start: utc(at), period_end: period.end });
  });

  it('describes each line as Stripe does', () => {
    const lines = prorate({ ...base, fromQuantity: 2, toQuantity: 3, at: utc('2025-01-16T00:00:00Z'), period: january });
    expect(lines.map((line) => line.description)).toEqual([
      'Unused time on 2 × Extra custom domain after 2025-01-16T00:00:00Z',
      'Remaining time on 3 × Extra custom domain after 2025-01-16T00:00:00Z',
    ]);
  });
});
