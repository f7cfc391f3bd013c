import { decimalText } from '@funnel/contracts';
import { isISO8601 } from 'class-validator';
import fc from 'fast-check';
import ipaddr from 'ipaddr.js';
import { MONEY_TEXT, normalizeDecimal } from './decimal';
import { checkHit, isIpAddress, moneyText, parseHit, parseHits, parseIsoTime } from './validate-hit';
import { HIT_VISITOR_FIELDS } from './hit';
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

/** parseHit reads the edge's common form in one straight pass: on any input it answers as the full rules do, byte for byte. */
describe('parseHit answers as checkHit does', () => {
  const id = fc.oneof(fc.constantFrom('HIT000000009', 'short', '', 'organic', 'VISITOR0000!', 'ABCDEFGHIJKLM'), fc.stringMatching(/^[0-9A-Za-z]{12}$/));
  const anything = fc.oneof(fc.constantFrom(undefined, null, true, 0, 1, -1, 1.5, '', 'x', [], {}), fc.string());
  const text = fc.oneof(fc.string({ maxLength: 20 }), fc.constant('x'.repeat(257)), fc.constant('y'.repeat(2049)), fc.integer());
  const tracking = fc.dictionary(fc.oneof(fc.constantFrom('campaign', 'external', 'c1', 'c20', 'c21', '__proto__'), fc.string()), text, { maxKeys: 4 });
  const visitor = fc.dictionary(fc.oneof(fc.constantFrom('deviceType', 'userAgent', 'city', 'unknown'), fc.string()), text, { maxKeys: 4 });
  const overrides = fc.record(
    {
      hitId: fc.oneof(id, anything),
      accountId: id,
      idTrafficSource: id,
      idPage: id,
      countryCode: fc.oneof(fc.constantFrom('', 'US', 'DE', 'us', 'XX', 'USA'), anything),
      ip: fc.oneof(fc.constantFrom('', '203.0.113.7', '300.1.1.1', '2001:db8::1', '01.2.3.4'), anything),
      time: fc.oneof(
        fc.constantFrom(
          '2026-01-10T12:00:00.000Z',
          '2026-02-29T12:00:00.000Z',
          '2028-02-29T23:59:59.999Z',
          '2026-01-10T24:00:00.000Z',
          '2026-01-10T13:00:00+01:00',
        ),
        fc.date({ min: new Date(Date.UTC(-10, 0, 1)), max: new Date(Date.UTC(12000, 0, 1)), noInvalidDate: true }).map((date) => date.toISOString()),
        anything,
      ),
      isEntrance: fc.oneof(fc.boolean(), anything),
      postbackCalled: fc.oneof(fc.boolean(), anything),
      cost: fc.oneof(fc.constantFrom('0', '0.50', '12.5', 0, 2.25, '-1'), anything),
      trackingFields: fc.oneof(tracking, anything),
      conversions: fc.oneof(fc.constant([]), fc.constant([{ transactionId: 'T1', payout: '2.10', time: '2026-01-10T12:05:00Z' }]), anything),
      customEvents: fc.oneof(fc.constantFrom({}, { '3': 2 }, { '4': 0 }, { '11': 1 }), anything),
      nodeType: fc.oneof(fc.constantFrom('', 'landerGroup', 'offerGroup', 'nope'), anything),
      idOfferSource: fc.oneof(id, anything),
      action: fc.oneof(fc.integer({ min: -1, max: 65 }), anything),
      previousHitId: fc.oneof(id, anything),
      clicks: fc.oneof(fc.integer({ min: -1, max: 3 }), fc.constant(2 ** 53), anything),
      visitor: fc.oneof(visitor, anything),
      visitorTags: fc.oneof(fc.array(id, { maxLength: 3 }), anything),
      middleware: fc.oneof(
        fc.constantFrom(
          { idMiddlewareConfig: 'MWCONFIG0001', matchedRouteId: 'r1', defaultReason: '', status: 200, latencyMs: 12 },
          { idMiddlewareConfig: 'MWCONFIG0001', defaultReason: 'timeout' },
          { idMiddlewareConfig: 'bad' },
        ),
        anything,
      ),
      unexpected: anything,
    },
    { requiredKeys: [] },
  );
  // Valid values only (in the edge's form and others), so that many hits pass.
  const validOverrides = fc.record(
    {
      hitId: fc.stringMatching(/^[0-9A-Za-z]{12}$/),
      idTrafficSource: fc.constantFrom('organic', 'TSOURCE00002'),
      idPage: fc.constantFrom('', 'PAGE00000002'),
      countryCode: fc.constantFrom('', 'US', 'DE'),
      ip: fc.constantFrom('', '203.0.113.7', '2001:db8::1'),
      time: fc.oneof(
        fc.date({ min: new Date(Date.UTC(1000, 0, 1)), max: new Date(Date.UTC(9999, 0, 1)), noInvalidDate: true }).map((date) => date.toISOString()),
        fc.constantFrom('2026-01-10T13:00:00+01:00', '2026-01-10T12:00:00Z'),
      ),
      cost: fc.constantFrom('0', '0.50', '12.5', 0, 2.25),
      trackingFields: fc.dictionary(fc.constantFrom('campaign', 'external', 'c1', 'c20'), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
      conversions: fc.constantFrom([], [{ transactionId: 'T1', payout: '2.10', time: '2026-01-10T12:05:00Z' }]),
      customEvents: fc.constantFrom({}, { '3': 2 }, { '4': 0 }),
      nodeType: fc.constantFrom('', 'landerGroup', 'offerGroup'),
      action: fc.integer({ min: 0, max: 64 }),
      previousHitId: fc.constantFrom('', 'HIT000000002'),
      clicks: fc.integer({ min: 0, max: 3 }),
      visitor: fc.dictionary(fc.constantFrom('deviceType', 'userAgent', 'city'), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
      visitorTags: fc.array(fc.constantFrom('TAG000000002', 'TAG000000001'), { maxLength: 3 }),
      middleware: fc.constantFrom({ idMiddlewareConfig: 'MWCONFIG0001', matchedRouteId: 'r1', defaultReason: '', status: 200, latencyMs: 12 }, null),
    },
    { requiredKeys: [] },
  );

  it('on hits with any of their fields changed, left out or added', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(validOverrides, overrides), (change) => {
        const input = JSON.parse(JSON.stringify({ ...valid(), ...change })) as unknown;
        const answer = parseHit(input);
        expect(JSON.stringify(answer)).toBe(JSON.stringify(checkHit(input)));
        if (answer.ok) accepted++;
      }),
      { numRuns: 5000 },
    );
    // Valid hits among them too, not only refusals.
    expect(accepted).toBeGreaterThan(1000);
  });

  it('on visitors with every attribute (as the edge writes them), in another order, or with one left out or added', () => {
    // Mostly valid values, so that many visitors pass.
    const value = fc.oneof(
      { arbitrary: fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('', 'unknown', 'y'.repeat(2048))), weight: 40 },
      { arbitrary: fc.constantFrom('y'.repeat(2049), 3, null, true), weight: 1 },
    );
    const fullVisitor = fc.array(value, { minLength: HIT_VISITOR_FIELDS.length, maxLength: HIT_VISITOR_FIELDS.length });
    const visitors = fc.oneof(
      fullVisitor.map((values) => HIT_VISITOR_FIELDS.map((field, i) => [field, values[i]] as [string, unknown])),
      fc
        .tuple(fullVisitor, fc.nat())
        .map(([values, at]) =>
          HIT_VISITOR_FIELDS.map((field, i) => [field, values[i]] as [string, unknown]).filter((_, i) => i !== at % HIT_VISITOR_FIELDS.length),
        ),
      fc.tuple(fullVisitor, fc.nat(), fc.constantFrom('unknown', '__proto__', 'userAgent')).map(([values, at, extra]) => {
        const entries = HIT_VISITOR_FIELDS.map((field, i) => [field, values[i]] as [string, unknown]);
        entries.splice(at % (entries.length + 1), 0, [extra, 'x']);
        return entries;
      }),
      fc.tuple(fullVisitor, fc.nat()).map(([values, shift]) => {
        const entries = HIT_VISITOR_FIELDS.map((field, i) => [field, values[i]] as [string, unknown]);
        return [...entries.slice(shift % entries.length), ...entries.slice(0, shift % entries.length)];
      }),
    );
    let accepted = 0;
    fc.assert(
      fc.property(visitors, (entries) => {
        // Written as JSON text, so that a repeated or "__proto__" key stays as JSON.parse reads it.
        const visitorText = `{${entries.map(([field, v]) => `${JSON.stringify(field)}:${JSON.stringify(v)}`).join(',')}}`;
        const input = JSON.parse(`${JSON.stringify(valid()).slice(0, -1)},"visitor":${visitorText}}`) as unknown;
        const answer = parseHit(input);
        expect(JSON.stringify(answer)).toBe(JSON.stringify(checkHit(input)));
        if (answer.ok) accepted++;
      }),
      { numRuns: 3000 },
    );
    expect(accepted).toBeGreaterThan(100);
  });

  it('on hits and visitors whose keys are inherited, not enumerable or read by a getter', () => {
    const hidden = (target: object, key: string, value: unknown) => Object.defineProperty(target, key, { value, enumerable: false });
    const inheritedVisitor = Object.assign(Object.create({ city: 'Paris', unknown: 'x' }) as object, aHit().visitor, { city: undefined });
    delete (inheritedVisitor as Record<string, unknown>)['city'];
    let reads = 0;
    const gotVisitor = { ...aHit().visitor };
    Object.defineProperty(gotVisitor, 'city', { enumerable: true, get: () => `read ${++reads}` });
    const inputs: unknown[] = [
      // Unknown keys: inherited or not enumerable (checkHit lists own enumerable keys only), own and enumerable.
      Object.assign(Object.create({ unexpected: 1 }) as object, valid()),
      hidden({ ...valid() }, 'unexpected', 1),
      hidden({ ...valid() }, 'hitId', 'HIT000000009'),
      Object.assign(Object.create({ ip: '203.0.113.8', unexpected: 1 }) as object, { ...valid(), ip: undefined }),
      JSON.parse(`${JSON.stringify(valid()).slice(0, -1)},"__proto__":{"hitId":"HIT000000009"}}`),
      // Visitors: every attribute but one inherited, one not enumerable, one read by a getter, one a "__proto__" key.
      { ...valid(), visitor: inheritedVisitor },
      { ...valid(), visitor: hidden({ ...aHit().visitor }, 'city', 'Paris') },
      { ...valid(), visitor: hidden({ ...aHit().visitor }, 'unknown', 'x') },
      { ...valid(), visitor: gotVisitor },
      JSON.parse(`${JSON.stringify(valid()).slice(0, -1)},"visitor":${JSON.stringify(aHit().visitor).slice(0, -1)},"__proto__":"Paris"}}`),
      // Tracking fields and tags alike.
      { ...valid(), trackingFields: hidden({ c1: 'x' }, 'c30', 'y') },
      { ...valid(), trackingFields: Object.assign(Object.create({ c30: 'y' }) as object, { c1: 'x' }) },
      JSON.parse(`${JSON.stringify(valid()).slice(0, -1)},"trackingFields":{"c1":"x","__proto__":"y"}}`),
      { ...valid(), visitorTags: ['TAG000000001', 'TAG000000002', 'TAG000000003'] },
      { ...valid(), visitorTags: ['TAG000000002', 'TAG000000001'] },
      { ...valid(), visitorTags: ['TAG000000001', 'TAG000000001'] },
      { ...valid(), visitorTags: Object.assign(['TAG000000001'], { 1: undefined }) },
    ];
    for (const input of inputs) {
      reads = 0;
      const answer = JSON.stringify(parseHit(input));
      reads = 0;
      expect(answer).toBe(JSON.stringify(checkHit(input)));
    }
  });

  it('on a run of hits that repeat ids, where a later one is invalid, from the first hit a process reads', async () => {
    const ids = ['', 'HIT000000001', 'HIT000000002', 'HIT00000000!', 'HIT000000002', ' HIT00000002', ''];
    const fields = ['hitId', 'previousHitId', 'visitorId', 'accountId', 'idFunnel', 'idFunnelGroup', 'idNode', 'idPage', 'idOfferSource', 'idTrafficSource'];
    // A fresh module: nothing read before in this process.
    await jest.isolateModulesAsync(async () => {
      const fresh = await import('./validate-hit');
      for (const id of ids)
        for (const field of fields) {
          const input = JSON.parse(JSON.stringify({ ...valid(), [field]: id })) as unknown;
          expect(JSON.stringify(fresh.parseHit(input))).toBe(JSON.stringify(checkHit(input)));
        }
    });
  });

  it('on what is not a plain hit', () => {
    const inherited = Object.assign(Object.create({ hitId: 'HIT000000001' }) as object, valid());
    for (const input of [null, 1, 'hit', [valid()], inherited, { ...valid(), trackingFields: Object.create({ c1: 'x' }) as object }])
      expect(JSON.stringify(parseHit(input))).toBe(JSON.stringify(checkHit(input)));
  });
});

/** parseHits reads a batch as parseHit reads each hit, reading a visitor or tracking-fields object that hits share (the edge's, by request) once. */
describe('parseHits answers as checkHit does', () => {
  const full = aHit({ visitor: { ...aHit().visitor, city: 'Paris', userAgent: 'Mozilla/5.0' } }).visitor;
  const visitors = [full, { ...full }, { ...full, userAgent: 'y'.repeat(2049) }, { city: 'Berlin' }, { ...full, unknown: 'x' }];
  const fields = [{ c1: 'a', campaign: 'b' }, { c1: 'a', c30: 'b' }, {}, { external: 'x'.repeat(257) }];
  // Hits drawn from a few shared objects, in runs (as the edge's requests), some invalid for another field.
  const batch = fc.array(
    fc.record({
      visitor: fc.nat(visitors.length - 1),
      trackingFields: fc.nat(fields.length - 1),
      run: fc.integer({ min: 1, max: 4 }),
      broken: fc.constantFrom(undefined, { hitId: 'bad' }, { ip: 'nope' }, { visitorTags: ['TAG000000002', 'TAG000000001'] }, { visitorTags: 'x' }),
    }),
    { maxLength: 12 },
  );

  it('on batches whose hits share visitor and tracking-fields objects, some of those hits invalid', () => {
    let accepted = 0;
    fc.assert(
      fc.property(batch, (runs) => {
        const inputs: unknown[] = runs.flatMap(({ visitor, trackingFields, run, broken }) =>
          Array.from({ length: run }, (_, i) => ({
            ...valid(),
            visitor: visitors[visitor],
            trackingFields: fields[trackingFields],
            ...(i === run - 1 ? broken : undefined),
          })),
        );
        const answers = parseHits(inputs);
        expect(JSON.stringify(answers)).toBe(JSON.stringify(inputs.map(checkHit)));
        accepted += answers.filter((answer) => answer.ok).length;
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(1000);
  });

  it('reads a shared object again in the next batch (it may have changed in between)', () => {
    const visitor: Record<string, unknown> = { ...full };
    const trackingFields: Record<string, unknown> = { c1: 'a' };
    const hits = [0, 1].map(() => ({ ...valid(), visitor, trackingFields }));
    expect(parseHits(hits).map((answer) => answer.ok)).toEqual([true, true]);
    visitor['city'] = 7;
    trackingFields['c1'] = 'x'.repeat(257);
    const again = parseHits(hits);
    expect(JSON.stringify(again)).toBe(JSON.stringify(hits.map(checkHit)));
    expect(again.map((answer) => answer.ok)).toEqual([false, false]);
  });
});
