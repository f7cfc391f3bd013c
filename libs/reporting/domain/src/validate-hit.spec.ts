import { decimalText } from '@funnel/contracts';
import { isISO8601 } from 'class-validator';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { MONEY_TEXT, normalizeDecimal } from './decimal';
import { isIpAddress, moneyText, parseHit, parseIsoTime } from './validate-hit';
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

/**
 * parseHit takes shortcuts for the forms the edge writes (UTC times as toISOString writes them,
 * canonical money text, dotted IPv4): each must answer as the full rule does, on any input.
 */
describe('parseHit shortcuts agree with the full rules', () => {
  const fullTime = (value: string) =>
    isISO8601(value, { strict: true }) && /T.*(Z|[+-]\d\d:?\d\d)$/.test(value) && Number.isFinite(Date.parse(value))
      ? new Date(Date.parse(value)).toISOString()
      : undefined;
  const fullMoney = (value: string) => {
    const text = decimalText(value);
    return text !== undefined && MONEY_TEXT.test(text) ? normalizeDecimal(text) : undefined;
  };
  const digits = (min: number, max: number) => fc.stringMatching(new RegExp(`^\\d{${min},${max}}$`));
  const pad = (n: number, width: number) => String(n).padStart(width, '0');
  // Near-canonical times: any digits in each field (invalid days, hours 24, year 0000 ...), with or without milliseconds.
  const times = fc.oneof(
    fc
      .tuple(
        digits(4, 4),
        fc.integer({ min: 0, max: 13 }),
        fc.integer({ min: 0, max: 32 }),
        fc.integer({ min: 0, max: 25 }),
        fc.integer({ min: 0, max: 61 }),
        fc.integer({ min: 0, max: 61 }),
        digits(0, 4),
        fc.constantFrom('Z', 'z', '+00:00', ''),
      )
      .map(([y, mo, d, h, mi, s, ms, zone]) => `${y}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${ms === '' ? '' : `.${ms}`}${zone}`),
    fc.date({ min: new Date(Date.UTC(-1000, 0, 1)), max: new Date(Date.UTC(12000, 0, 1)), noInvalidDate: true }).map((date) => date.toISOString()),
    fc.string(),
  );
  const money = fc.oneof(
    fc.tuple(digits(1, 14), fc.option(digits(0, 8))).map(([whole, fraction]) => (fraction === null ? whole : `${whole}.${fraction}`)),
    fc.double().map(String),
    fc.string(),
  );
  const octet = fc.oneof(fc.integer({ min: 0, max: 300 }).map(String), digits(1, 4), fc.constant(''));
  const ips = fc.oneof(
    fc.tuple(octet, octet, octet, octet).map((parts) => parts.join('.')),
    fc.ipV4(),
    fc.ipV6(),
    fc.string(),
  );

  it('reads times as the ISO 8601 rule does', () =>
    fc.assert(
      fc.property(times, (value) => expect(parseIsoTime(value)).toEqual(fullTime(value))),
      { numRuns: 5000 },
    ));

  it('reads money text as the decimal rule does', () =>
    fc.assert(
      fc.property(money, (value) => expect(moneyText(value)).toEqual(fullMoney(value))),
      { numRuns: 5000 },
    ));

  it('takes IP addresses as ipaddr.js does', () =>
    fc.assert(
      fc.property(ips, (value) => expect(isIpAddress(value)).toBe(ipaddr.isValid(value))),
      { numRuns: 5000 },
    ));
});
