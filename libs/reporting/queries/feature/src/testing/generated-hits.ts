import { hitDefaults, type Hit } from '@funnel/reporting-domain';

/** A small deterministic PRNG (mulberry32), so every run generates the same hits. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const ACCOUNT = 'acct-reports';
export const OTHER_ACCOUNT = 'acct-other';
export const FUNNELS = ['fnlA0000001', 'fnlB0000002', 'fnlC0000003'];
export const SOURCES = ['srcA0000001', 'srcB0000002', 'srcC0000003'];
export const TAGS = ['tagA0000001', 'tagB0000002'];
/** Tracking-field values, "" (N/A) and texts with LIKE's own wildcards in them. */
export const C1_VALUES = ['', 'alpha', 'Alpha-2', '50%_off', '50percent', 'beta'];
const COUNTRIES = ['', 'US', 'DE', 'FR'];
const NODE_TYPES = ['landerGroup', 'offerGroup', 'rotator'];

/**
 * Hits of two accounts around the America/New_York DST change (2026-03-06 .. 2026-03-11 UTC):
 * entrances and the hits after them, with costs, conversions (some a day or two after the hit, some
 * outside the window), clicks, tags, visitor attributes and tracking fields, some left empty.
 */
export function generateHits(count = 900, seed = 20): Hit[] {
  const next = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)];
  const start = Date.parse('2026-03-06T00:00:00Z');
  const hits: Hit[] = [];
  for (let i = 0; i < count; i++) {
    const accountId = i % 9 === 8 ? OTHER_ACCOUNT : ACCOUNT;
    const time = start + Math.floor(next() * 5 * 86_400_000);
    const isEntrance = next() < 0.45;
    const nodeType = isEntrance ? 'rotator' : pick(NODE_TYPES);
    const idFunnel = accountId === OTHER_ACCOUNT ? 'fnlOther0001' : pick(FUNNELS);
    const conversions =
      next() < 0.2
        ? Array.from({ length: 1 + Math.floor(next() * 2) }, (_, j) => ({
            transactionId: `tx${i}-${j}`,
            payout: (Math.floor(next() * 500000) / 100000).toFixed(5),
            time: new Date(time + Math.floor(next() * 2.5 * 86_400_000)).toISOString(),
          }))
        : [];
    hits.push({
      ...hitDefaults(),
      hitId: `hit${String(i).padStart(5, '0')}`,
      visitorId: `v${Math.floor(next() * 150)}`,
      accountId,
      idFunnel,
      idFunnelGroup: idFunnel === 'fnlC0000003' ? 'grpB0000002' : 'grpA0000001',
      idTrafficSource: pick(SOURCES),
      idNode: `${idFunnel}-${nodeType}`,
      idPage: nodeType === 'rotator' ? '' : `page${nodeType}${Math.floor(next() * 2)}`,
      nodeType,
      idOfferSource: nodeType === 'offerGroup' ? 'osrcA000001' : '',
      countryCode: pick(COUNTRIES),
      ip: `10.0.0.${i % 250}`,
      trackingFields: Object.fromEntries(
        [
          ['c1', pick(C1_VALUES)],
          ['campaign', pick(['', 'spring', 'summer'])],
        ].filter(([, value]) => value !== ''),
      ),
      time: new Date(time).toISOString(),
      isEntrance,
      cost: isEntrance ? (Math.floor(next() * 300) / 1000).toFixed(3) : '0',
      conversions,
      customEvents: next() < 0.1 ? { '1': 1 + Math.floor(next() * 3) } : {},
      postbackCalled: false,
      action: isEntrance ? 0 : 1 + Math.floor(next() * 3),
      previousHitId: '',
      visitor: {
        ...hitDefaults().visitor,
        city: pick(['', 'Berlin', 'Paris']),
        deviceType: pick(['mobile', 'desktop']),
        referrer: pick(['', 'https://www.Example.com/path?q=1', 'http://user@news.example.org:8080/x', 'android-app://com.app']),
      },
      visitorTags: next() < 0.3 ? [] : next() < 0.5 ? [TAGS[0]] : [...TAGS],
      clicks: nodeType === 'rotator' ? 0 : Math.floor(next() * 3),
    });
  }
  return hits;
}
