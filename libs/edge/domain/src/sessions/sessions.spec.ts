import fc from 'fast-check';
import type { RoutingSession } from '@funnel/routing';
import { SESSION_CAPS, boundSession, capRecord, decodeSession, encodeSession, isSessionKeyPart, sessionKey } from './index';

const session = (overrides: Partial<RoutingSession> = {}): RoutingSession => ({
  visitorId: 'V0000000001a',
  startedAt: Date.UTC(2026, 0, 1),
  idFunnel: 'F0000000001a',
  idTrafficSource: 'T0000000001a',
  currentNode: 'N0000000001a',
  lastHitId: 'H0000000001a',
  currentPage: 'P0000000001a',
  trackingFields: { c1: 'camp', c2: 'ad' },
  cost: '0.25',
  tags: ['TAG000000001', 'TAG000000002'],
  sticky: { N0000000002a: 'C0000000001a' },
  urlBuffer: { gclid: 'abc', utm_source: 'news' },
  ...overrides,
});

const params = (count: number, value = (i: number) => `value-${i}`) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, value(i)]));

describe('session keys', () => {
  it('accept ids of letters, digits, _ and - up to 64 characters, and nothing that could reach into another key', () => {
    for (const good of ['V0000000001a', 'acc_1', 'a-b', 'x'.repeat(64)]) expect(isSessionKeyPart(good)).toBe(true);
    for (const bad of ['', 'a.b', 'a*', 'a>', 'a b', 'é', 'x'.repeat(65), '../x', 12 as unknown as string, undefined])
      expect(isSessionKeyPart(bad)).toBe(false);
    expect(sessionKey('ACC1', 'V1')).toBe('ACC1.V1');
  });
});

describe('session bounds', () => {
  it('leave a session within its caps as it is', () => {
    const within = session();
    expect(boundSession(within)).toBe(within);
  });

  it('keep the first 64 URL parameters and drop the ones a visitor adds beyond', () => {
    const bounded = boundSession(session({ urlBuffer: params(100) }));
    expect(Object.keys(bounded.urlBuffer)).toEqual(Object.keys(params(64)));
    expect(bounded.urlBuffer['p63']).toBe('value-63');
  });

  it('drop a URL parameter whose name or value is too long rather than keep a cut value', () => {
    const bounded = boundSession(session({ urlBuffer: { gclid: 'g', [`n${'x'.repeat(64)}`]: 'v', big: 'x'.repeat(1025), max: 'y'.repeat(1024) } }));
    expect(bounded.urlBuffer).toEqual({ gclid: 'g', max: 'y'.repeat(1024) });
  });

  it('drop an entry whose value is no text (a caller outside the types) rather than fail or keep it', () => {
    const odd = { gclid: 'g', missing: undefined, count: 7 } as unknown as Record<string, string>;
    expect(boundSession(session({ urlBuffer: odd, sticky: odd })).urlBuffer).toEqual({ gclid: 'g' });
    expect(JSON.parse(encodeSession(session({ trackingFields: odd }))).trackingFields).toEqual({ gclid: 'g' });
  });

  it('stop the URL buffer at 16,384 characters of names and values', () => {
    const bounded = boundSession(session({ urlBuffer: params(40, () => 'v'.repeat(1000)) }));
    const chars = Object.entries(bounded.urlBuffer).reduce((sum, [name, value]) => sum + name.length + value.length, 0);
    expect(Object.keys(bounded.urlBuffer)).toHaveLength(16);
    expect(chars).toBeLessThanOrEqual(SESSION_CAPS.urlBuffer.maxTotalChars);
  });

  it('keep tags unique and sorted, at most 128 of them', () => {
    const many = Array.from({ length: 200 }, (_, i) => `TAG${String(199 - i).padStart(9, '0')}`);
    const bounded = boundSession(session({ tags: [...many, many[0]] }));
    expect(bounded.tags).toHaveLength(128);
    expect(bounded.tags[0]).toBe('TAG000000000');
    expect(bounded.tags).toEqual([...bounded.tags].sort());
  });

  it('cap tracking fields and sticky choices the same way', () => {
    const bounded = boundSession(session({ trackingFields: params(40), sticky: params(300, () => 'C0000000001a') }));
    expect(Object.keys(bounded.trackingFields)).toHaveLength(32);
    expect(Object.keys(bounded.sticky)).toHaveLength(256);
  });

  it('keep any session, however large, under 70,000 characters of JSON, and bounding twice changes nothing', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'Z', '9', '-', '_', '%'), maxLength: 1100 });
    const map = fc.dictionary(fc.string({ maxLength: 70 }), text, { maxKeys: 80 });
    fc.assert(
      fc.property(map, map, map, fc.array(fc.string({ maxLength: 70 }), { maxLength: 200 }), (urlBuffer, trackingFields, sticky, tags) => {
        const bounded = boundSession(session({ urlBuffer, trackingFields, sticky, tags }));
        expect(encodeSession(bounded).length).toBeLessThan(70_000);
        expect(boundSession(bounded)).toEqual(bounded);
      }),
      { numRuns: 30 },
    );
  });

  it('at the largest it may be, still stay under 70,000 characters of JSON', () => {
    const full = (caps: typeof SESSION_CAPS.urlBuffer | typeof SESSION_CAPS.trackingFields | typeof SESSION_CAPS.sticky) =>
      capRecord(
        Object.fromEntries(Array.from({ length: caps.maxEntries }, (_, i) => [String(i).padStart(caps.maxNameChars, 'n'), 'v'.repeat(caps.maxValueChars)])),
        caps,
      );
    const largest = session({
      urlBuffer: full(SESSION_CAPS.urlBuffer),
      trackingFields: full(SESSION_CAPS.trackingFields),
      sticky: full(SESSION_CAPS.sticky),
      tags: Array.from({ length: 128 }, (_, i) => String(i).padStart(64, 't')).sort(),
    });
    expect(boundSession(largest)).toBe(largest);
    expect(encodeSession(largest).length).toBeLessThan(70_000);
  });
});

describe('session codec', () => {
  it('reads back what it wrote', () => {
    const written = session();
    expect(decodeSession(encodeSession(written), written.visitorId)).toEqual(written);
  });

  it('answers no session for damaged text, another visitor’s session, or a shape it does not know', () => {
    const text = encodeSession(session());
    expect(decodeSession('{not json', 'V0000000001a')).toBeNull();
    expect(decodeSession('null', 'V0000000001a')).toBeNull();
    expect(decodeSession(text, 'V0000000002a')).toBeNull();
    const broken = (change: Record<string, unknown>) => JSON.stringify({ ...JSON.parse(text), ...change });
    for (const change of [{ tags: 'x' }, { tags: [1] }, { urlBuffer: { a: 1 } }, { urlBuffer: null }, { startedAt: '1' }, { cost: 0 }, { sticky: [] }])
      expect(decodeSession(broken(change), 'V0000000001a')).toBeNull();
  });
});
