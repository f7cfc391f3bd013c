import { HIT_VISITOR_FIELDS, VISITOR_VALUE_MAX, parseHit } from '@funnel/reporting-domain';
import type { RoutedHit } from '@funnel/routing';
import { reportingHitOf, reportingHitsOf, requestHitContext, type HitVisitorSource } from './reporting-hit';

const ACCOUNT = 'ACCOUNT00001';
const TIME = Date.UTC(2026, 0, 10, 12, 30, 15, 250);

function routedHit(overrides: Partial<RoutedHit> = {}): RoutedHit {
  return {
    hitId: 'HIT000000001',
    visitorId: 'VISITOR00001',
    idFunnel: 'FUNNEL000001',
    idFunnelGroup: 'FGROUP000001',
    idTrafficSource: 'TSOURCE00001',
    idNode: 'NODE00000001',
    nodeType: 'offerGroup',
    idPage: 'PAGE00000001',
    idOfferSource: 'OSOURCE00001',
    isEntrance: false,
    action: 2,
    previousHitId: 'HIT000000000',
    cost: '0',
    time: TIME,
    trackingFields: { campaign: 'spring', c3: 'abc' },
    visitorTags: ['TAG000000001', 'TAG000000002'],
    ...overrides,
  };
}

const resolvedVisitor: HitVisitorSource = {
  ip: '203.0.113.7',
  attributes: {
    country: 'DE',
    city: 'Berlin',
    region: 'Berlin',
    continent: 'Europe',
    timezone: 'GMT+1',
    deviceType: 'mobile',
    brand: 'Apple',
    model: 'iPhone',
    os: 'iOS',
    osVersion: '17.4',
    browser: 'Mobile Safari',
    browserVersion: '17.4',
    mainLanguage: 'de',
    browserLanguage: 'de-DE',
    isp: 'unknown',
    connectionType: 'unknown',
    mobileCarrier: 'unknown',
    referrer: 'https://news.example/',
    userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)',
    utcOffsetHours: 1,
    currentURL: 'https://track.example/fts/abc',
  },
};

describe('the reporting hit of a node visited', () => {
  it('carries every field of the walk, the account and the visitor, as ingest takes it unchanged', () => {
    const hit = reportingHitOf(requestHitContext(ACCOUNT, resolvedVisitor), routedHit());
    expect(hit).toEqual({
      hitId: 'HIT000000001',
      visitorId: 'VISITOR00001',
      accountId: ACCOUNT,
      idFunnel: 'FUNNEL000001',
      idFunnelGroup: 'FGROUP000001',
      idTrafficSource: 'TSOURCE00001',
      idNode: 'NODE00000001',
      idPage: 'PAGE00000001',
      countryCode: 'DE',
      ip: '203.0.113.7',
      trackingFields: { campaign: 'spring', c3: 'abc' },
      time: '2026-01-10T12:30:15.250Z',
      isEntrance: false,
      cost: '0',
      conversions: [],
      customEvents: {},
      postbackCalled: false,
      nodeType: 'offerGroup',
      idOfferSource: 'OSOURCE00001',
      action: 2,
      previousHitId: 'HIT000000000',
      visitor: {
        deviceType: 'mobile',
        brand: 'Apple',
        model: 'iPhone',
        os: 'iOS',
        osVersion: '17.4',
        browser: 'Mobile Safari',
        browserVersion: '17.4',
        mainLanguage: 'de',
        browserLanguage: 'de-DE',
        city: 'Berlin',
        region: 'Berlin',
        continent: 'Europe',
        timezone: 'GMT+1',
        isp: 'unknown',
        connectionType: 'unknown',
        mobileCarrier: 'unknown',
        referrer: 'https://news.example/',
        userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)',
      },
      visitorTags: ['TAG000000001', 'TAG000000002'],
      clicks: 0,
    });
    expect(parseHit(hit)).toEqual({ ok: true, value: hit });
  });

  it('keeps an entrance hit with its cost and no previous hit', () => {
    const hit = reportingHitOf(
      requestHitContext(ACCOUNT, resolvedVisitor),
      routedHit({ isEntrance: true, action: 0, previousHitId: '', cost: '0.35', nodeType: 'root', idPage: '', idOfferSource: '' }),
    );
    expect(hit).toMatchObject({ isEntrance: true, action: 0, previousHitId: '', cost: '0.35', nodeType: 'root', idPage: '', idOfferSource: '' });
    expect(parseHit(hit).ok).toBe(true);
  });

  it('keeps `unknown` attributes as the visitor context resolved them and leaves absent ones empty, as routing reads them', () => {
    const hit = reportingHitOf(requestHitContext(ACCOUNT, { attributes: { country: 'unknown', os: 'unknown', browser: '' } }), routedHit());
    expect(hit.visitor.os).toBe('unknown');
    expect(hit.visitor.browser).toBe('');
    expect(hit.visitor.city).toBe('');
    expect(Object.keys(hit.visitor).sort()).toEqual([...HIT_VISITOR_FIELDS].sort());
    // A hit's country is an ISO code or "": `unknown` is no country.
    expect(hit.countryCode).toBe('');
    expect(hit.ip).toBe('');
    expect(parseHit(hit).ok).toBe(true);
  });

  it('takes the address from the request, else the ip attribute, and drops one that is no address', () => {
    expect(requestHitContext(ACCOUNT, { ip: '2001:db8::1', attributes: { ip: '198.51.100.1' } }).ip).toBe('2001:db8::1');
    expect(requestHitContext(ACCOUNT, { attributes: { ip: '198.51.100.1' } }).ip).toBe('198.51.100.1');
    expect(requestHitContext(ACCOUNT, { ip: 'unknown', attributes: {} }).ip).toBe('');
    expect(requestHitContext(ACCOUNT, { attributes: { country: 'de' } }).countryCode).toBe('');
    expect(requestHitContext(ACCOUNT, { attributes: { country: 'XX' } }).countryCode).toBe('');
  });

  it('makes what a hit cannot hold fit instead of losing the hit at ingest', () => {
    const longAgent = 'A'.repeat(VISITOR_VALUE_MAX + 10);
    const hit = reportingHitOf(
      requestHitContext(ACCOUNT, { attributes: { userAgent: longAgent, brand: 42 as unknown as string } }),
      routedHit({ cost: '-1', trackingFields: { campaign: 'x'.repeat(300), notASlot: 'y', c20: 'z' } }),
    );
    expect(hit.visitor.userAgent).toBe(longAgent.slice(0, VISITOR_VALUE_MAX));
    expect(hit.visitor.brand).toBe('');
    expect(hit.cost).toBe('0');
    expect(hit.trackingFields).toEqual({ campaign: 'x'.repeat(256), c20: 'z' });
    expect(parseHit(hit).ok).toBe(true);
  });

  it('writes costs as canonical money text', () => {
    expect(reportingHitOf(requestHitContext(ACCOUNT, resolvedVisitor), routedHit({ cost: '1.50' })).cost).toBe('1.5');
  });
});

describe("the reporting hits of a request's walk", () => {
  it('are one per node visited, in order, all with the same visitor', () => {
    const hits = reportingHitsOf(ACCOUNT, resolvedVisitor, [
      routedHit({ hitId: 'HIT000000001', nodeType: 'root', isEntrance: true, action: 0, previousHitId: '', idPage: '', idOfferSource: '' }),
      routedHit({ hitId: 'HIT000000002', nodeType: 'rotator', action: 0, previousHitId: 'HIT000000001', idPage: '', idOfferSource: '' }),
      routedHit({ hitId: 'HIT000000003', nodeType: 'landerGroup', action: 0, previousHitId: 'HIT000000002', idOfferSource: '' }),
    ]);
    expect(hits.map((hit) => [hit.hitId, hit.nodeType, hit.previousHitId])).toEqual([
      ['HIT000000001', 'root', ''],
      ['HIT000000002', 'rotator', 'HIT000000001'],
      ['HIT000000003', 'landerGroup', 'HIT000000002'],
    ]);
    expect(new Set(hits.map((hit) => hit.visitor.browser))).toEqual(new Set(['Mobile Safari']));
    expect(hits.every((hit) => parseHit(hit).ok)).toBe(true);
  });

  it('each keep the tags, tracking fields and time the walk gave them, also where they change between hits', () => {
    const fields = { campaign: 'spring', c1: 'zone-7', notASlot: 'x' };
    const before = ['TAG000000001'];
    const after = ['TAG000000001', 'TAG000000002'];
    const hits = reportingHitsOf(ACCOUNT, resolvedVisitor, [
      routedHit({ hitId: 'HIT000000001', trackingFields: fields, visitorTags: before }),
      routedHit({ hitId: 'HIT000000002', trackingFields: fields, visitorTags: after }),
      routedHit({ hitId: 'HIT000000003', trackingFields: { c2: 'other' }, visitorTags: after, time: TIME + 1000 }),
    ]);
    expect(hits.map((hit) => [hit.visitorTags, hit.trackingFields, hit.time])).toEqual([
      [['TAG000000001'], { campaign: 'spring', c1: 'zone-7' }, '2026-01-10T12:30:15.250Z'],
      [['TAG000000001', 'TAG000000002'], { campaign: 'spring', c1: 'zone-7' }, '2026-01-10T12:30:15.250Z'],
      [['TAG000000001', 'TAG000000002'], { c2: 'other' }, '2026-01-10T12:30:16.250Z'],
    ]);
  });

  it('are none for a walk that visited no node', () => {
    expect(reportingHitsOf(ACCOUNT, resolvedVisitor, [])).toEqual([]);
  });
});
