import { costUpdatesOf, costWindowOf, derivedJobId, spendText, zoneDay, zoneDayStart } from './cost-sync';

describe('cost sync windows', () => {
  it("cuts a UTC window into the ad account's days and back into UTC windows, across a DST change", () => {
    expect(costWindowOf('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z', 'Europe/Paris')).toEqual({
      since: '2026-03-28',
      until: '2026-03-30',
      timezone: 'Europe/Paris',
    });
    expect(costWindowOf('2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z', 'America/New_York')).toEqual({
      since: '2026-03-27',
      until: '2026-03-29',
      timezone: 'America/New_York',
    });
    // Paris: UTC+1 in winter, UTC+2 from 2026-03-29.
    expect(new Date(zoneDayStart('2026-03-28', 'Europe/Paris')).toISOString()).toBe('2026-03-27T23:00:00.000Z');
    expect(new Date(zoneDayStart('2026-03-30', 'Europe/Paris')).toISOString()).toBe('2026-03-29T22:00:00.000Z');
    expect(zoneDay(Date.parse('2026-03-29T22:30:00Z'), 'Europe/Paris')).toBe('2026-03-30');
    // An unknown zone name counts as UTC.
    expect(costWindowOf('2026-03-28T00:00:00Z', '2026-03-29T00:00:00Z', 'Mars/Olympus').timezone).toBe('UTC');
  });

  it('makes one cost update per day, one whole-segment segment per campaign on the campaign tracking field', () => {
    const updates = costUpdatesOf(
      [
        { campaignId: '238', day: '2026-03-29', spend: 12.5, currency: 'EUR' },
        { campaignId: '120', day: '2026-03-29', spend: 0.1 + 0.2, currency: 'EUR' },
        { campaignId: '120', day: '2026-03-28', spend: 4, currency: 'EUR' },
      ],
      'TS0000000001',
      'Europe/Paris',
    );
    expect(updates).toEqual([
      {
        day: '2026-03-28',
        update: {
          funnelIDs: [],
          trafficSourceIDs: ['TS0000000001'],
          timeStart: '2026-03-27T23:00:00.000Z',
          timeEnd: '2026-03-28T23:00:00.000Z',
          segments: [{ cost: '4', costType: 'costForWholeSegment', restrictToCountryCode: '', restrictToTrackingFields: [{ key: 'campaign', value: '120' }] }],
        },
      },
      {
        day: '2026-03-29',
        update: expect.objectContaining({
          timeStart: '2026-03-28T23:00:00.000Z',
          timeEnd: '2026-03-29T22:00:00.000Z',
          segments: [
            expect.objectContaining({ cost: '0.3', restrictToTrackingFields: [{ key: 'campaign', value: '120' }] }),
            expect.objectContaining({ cost: '12.5', restrictToTrackingFields: [{ key: 'campaign', value: '238' }] }),
          ],
        }),
      },
    ]);
    const many = Array.from({ length: 1001 }, (_, i) => ({ campaignId: `c${i}`, day: '2026-01-01', spend: 1, currency: 'EUR' }));
    expect(costUpdatesOf(many, 'TS0000000001', 'UTC').map((u) => u.update.segments.length)).toEqual([1000, 1]);
  });

  it('writes spend as decimal text and derives stable 12-character job ids', () => {
    expect([spendText(1e-7), spendText(1234567.891), spendText(-1), spendText(NaN)]).toEqual(['0', '1234567.891', '0', '0']);
    expect(derivedJobId('a', 'b')).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(derivedJobId('a', 'b')).toBe(derivedJobId('a', 'b'));
    expect(derivedJobId('a', 'b')).not.toBe(derivedJobId('a', 'c'));
  });
});
