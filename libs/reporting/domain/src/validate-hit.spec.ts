import { parseHit } from './validate-hit';
import { aHit } from './testing/hits';

const valid = () => {
  const { conversions: _c, customEvents: _e, cost: _cost, postbackCalled: _p, ...required } = aHit();
  return required as Record<string, unknown>;
};

describe('parseHit (ingest)', () => {
  it('accepts a hit and fills the fields an ingest may leave out', () => {
    const result = parseHit({ ...valid(), time: '2026-01-10T13:00:00+01:00' });
    expect(result).toEqual({ ok: true, value: aHit({ time: '2026-01-10T12:00:00.000Z' }) });
  });

  it('keeps conversions, events and costs in canonical form', () => {
    const result = parseHit({
      ...valid(),
      cost: '0.50',
      conversions: [{ transactionId: 'T1', payout: '2.10', time: '2026-01-10T12:05:00Z' }],
      customEvents: { '3': 2, '4': 0 },
      trackingFields: { external: 'abc', c20: 'z' },
      idTrafficSource: 'organic',
      idPage: '',
      countryCode: '',
      ip: '2001:db8::1',
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        cost: '0.5',
        conversions: [{ transactionId: 'T1', payout: '2.1', time: '2026-01-10T12:05:00.000Z' }],
        customEvents: { '3': 2 },
        trackingFields: { external: 'abc', c20: 'z' },
        idTrafficSource: 'organic',
      },
    });
  });

  it('takes decimals as JSON numbers as well as text, as the update routes take payouts', () => {
    const result = parseHit({
      ...valid(),
      cost: 0.5,
      conversions: [
        { transactionId: 'T1', payout: 12, time: '2026-01-10T12:05:00Z' },
        { transactionId: 'T2', payout: 2.125, time: '2026-01-10T12:06:00Z' },
      ],
    });
    expect(result).toMatchObject({
      ok: true,
      value: {
        cost: '0.5',
        conversions: [
          { transactionId: 'T1', payout: '12' },
          { transactionId: 'T2', payout: '2.125' },
        ],
      },
    });
  });

  it.each([
    ['hitId', { hitId: 'short' }],
    ['visitorId', { visitorId: 'VISITOR0000!' }],
    ['accountId', { accountId: undefined }],
    ['idFunnel', { idFunnel: 'FUNNEL0000001' }],
    ['idTrafficSource', { idTrafficSource: '' }],
    ['idNode', { idNode: '' }],
    ['countryCode', { countryCode: 'XX' }],
    ['countryCode', { countryCode: 'us' }],
    ['ip', { ip: '300.1.1.1' }],
    ['time', { time: '2026-01-10' }],
    ['time', { time: '2026-01-10T12:00:00' }],
    ['time', { time: 'yesterday' }],
    ['isEntrance', { isEntrance: 'yes' }],
    ['cost', { cost: '-1' }],
    ['cost', { cost: '1.1234567' }],
    ['cost', { cost: -2.5 }],
    ['cost', { cost: 0.1234567 }],
    ['cost', { cost: true }],
    ['conversions[0].payout', { conversions: [{ transactionId: 'a', payout: -1, time: '2026-01-10T12:00:00Z' }] }],
    ['trackingFields.c21', { trackingFields: { c21: 'x' } }],
    ['trackingFields.external', { trackingFields: { external: 'x'.repeat(257) } }],
    ['conversions[0].payout', { conversions: [{ transactionId: 'a', payout: '-1', time: '2026-01-10T12:00:00Z' }] }],
    ['conversions[0].time', { conversions: [{ transactionId: 'a', payout: '1' }] }],
    [
      'conversions[1].transactionId',
      {
        conversions: [
          { payout: '1', time: '2026-01-10T12:00:00Z' },
          { payout: '2', time: '2026-01-10T12:00:00Z' },
        ],
      },
    ],
    ['customEvents.11', { customEvents: { '11': 1 } }],
    ['customEvents.2', { customEvents: { '2': 1.5 } }],
    ['unexpected', { unexpected: true }],
  ])('refuses a bad %s', (field, change) => {
    const result = parseHit({ ...valid(), ...change });
    expect(result.ok).toBe(false);
    expect(!result.ok && result.errors.map((error) => error.field)).toContain(field);
  });

  it('refuses what is not an object', () => expect(parseHit([1])).toEqual({ ok: false, errors: [{ field: '', message: 'a hit must be an object' }] }));
});
