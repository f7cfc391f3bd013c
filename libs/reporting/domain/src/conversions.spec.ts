import { applyConversion } from './conversions';
import { aHit } from './testing/hits';

const now = new Date('2026-02-01T00:00:00.000Z');
const settings = { overridePayout: null, now };
const converted = aHit({ conversions: [{ transactionId: 'T1', payout: '5', time: '2026-01-11T00:00:00.000Z' }] });

describe('conversions', () => {
  it('adds the first conversion, at the time given', () =>
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '2.50', transactionId: 'T1', time: '2026-01-12T10:00:00+02:00' }, settings)).toMatchObject({
      outcome: 'applied',
      kind: 'added',
      hit: { conversions: [{ transactionId: 'T1', payout: '2.5', time: '2026-01-12T08:00:00.000Z' }] },
    }));

  it('takes now for a row without a time and "" for a row without a transaction id', () =>
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '1' }, settings).hit.conversions).toEqual([
      { transactionId: '', payout: '1', time: '2026-02-01T00:00:00.000Z' },
    ]));

  it("takes each job's own now for its rows without a time", () => {
    const later = new Date('2026-03-01T12:00:00.000Z');
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '1' }, settings).hit.conversions[0].time).toBe('2026-02-01T00:00:00.000Z');
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '1' }, { overridePayout: null, now: later }).hit.conversions[0].time).toBe(
      '2026-03-01T12:00:00.000Z',
    );
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '1' }, settings).hit.conversions[0].time).toBe('2026-02-01T00:00:00.000Z');
  });

  it.each([
    ['-1.0', 'removes'],
    ['-1.000000', 'removes'],
  ])('reads a payout of %s as -1: it %s the conversions', (payout) =>
    expect(applyConversion(converted, { hitId: 'HIT000000001', payout }, settings)).toMatchObject({ outcome: 'applied', kind: 'removed', removed: 1 }),
  );

  it.each(['-2', '-0.5'])('refuses a negative payout other than -1 (%s)', (payout) =>
    expect(() => applyConversion(converted, { hitId: 'HIT000000001', payout }, settings)).toThrow(RangeError),
  );

  it('adds a conversion for a new transaction id on a converted hit', () =>
    expect(
      applyConversion(converted, { hitId: 'HIT000000001', payout: '3', transactionId: 'T2' }, settings).hit.conversions.map((c) => c.transactionId),
    ).toEqual(['T1', 'T2']));

  it('replaces the conversion with the same transaction id', () =>
    expect(applyConversion(converted, { hitId: 'HIT000000001', payout: '7', transactionId: 'T1', time: '2026-01-13T00:00:00Z' }, settings)).toMatchObject({
      outcome: 'applied',
      kind: 'replaced',
      hit: { conversions: [{ transactionId: 'T1', payout: '7', time: '2026-01-13T00:00:00.000Z' }] },
    }));

  it('is a noop when the same conversion comes again', () =>
    expect(applyConversion(converted, { hitId: 'HIT000000001', payout: '5.00', transactionId: 'T1', time: '2026-01-11T00:00:00Z' }, settings).outcome).toBe(
      'noop',
    ));

  it('removes all the conversions with payout -1', () => {
    const twice = applyConversion(converted, { hitId: 'HIT000000001', payout: '3', transactionId: 'T2' }, settings).hit;
    expect(applyConversion(twice, { hitId: 'HIT000000001', payout: '-1' }, settings)).toMatchObject({
      outcome: 'applied',
      kind: 'removed',
      removed: 2,
      hit: { conversions: [] },
    });
  });

  it('is a noop to remove the conversions of a hit without any', () =>
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '-1' }, settings).outcome).toBe('noop'));

  it('uses overridePayout for every row, but a -1 row still removes', () => {
    const overridden = { overridePayout: '9.99', now };
    expect(applyConversion(aHit(), { hitId: 'HIT000000001', payout: '1', transactionId: 'A' }, overridden).hit.conversions[0].payout).toBe('9.99');
    expect(applyConversion(converted, { hitId: 'HIT000000001', payout: '-1' }, overridden).hit.conversions).toEqual([]);
  });
});
