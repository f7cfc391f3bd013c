// The visitors of the routing bench: a spread that reaches every branch of the realistic funnel
// (bots, organic, retargeting, North America by day and by night, DACH with and without the pro plan,
// the rest of the world on mobile and desktop).
import type { IdSource, RandomSource, RoutingSession, RoutingVisitor, WalkInput } from '@funnel/routing';

export interface BenchVisitor {
  entrance: RoutingVisitor;
  action: RoutingVisitor;
}

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';
const IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

function visitor(at: string, attributes: RoutingVisitor['attributes'], params: Record<string, string>): BenchVisitor {
  const time = Date.parse(at);
  return {
    entrance: { attributes, time, params, ip: '203.0.113.7' },
    // The click on the lander's call to action, half a minute later, with a parameter the lander adds.
    action: { attributes, time: time + 30_000, params: { cta: 'hero' }, ip: '203.0.113.7' },
  };
}

/** Eight visitors (a power of two: `j & 7` picks one). */
export const BENCH_VISITORS: readonly BenchVisitor[] = [
  visitor('2026-03-03T15:00:00Z', { country: 'US', deviceType: 'desktop', userAgent: CHROME, utcOffsetHours: -5 }, { campaign: 'spring_sale', source: 'fb' }),
  visitor(
    '2026-03-04T02:30:00Z',
    { country: 'CA', deviceType: 'mobile', userAgent: IPHONE, utcOffsetHours: -5 },
    { campaign: 'spring_sale', source: 'tiktok' },
  ),
  visitor(
    '2026-03-03T10:00:00Z',
    { country: 'DE', deviceType: 'mobile', userAgent: IPHONE, utcOffsetHours: 1 },
    { campaign: 'spring_dach', source: 'fb', plan: 'pro' },
  ),
  visitor(
    '2026-03-07T11:00:00Z',
    { country: 'AT', deviceType: 'desktop', userAgent: CHROME, utcOffsetHours: 1 },
    { campaign: 'spring_dach', source: 'google' },
  ),
  visitor('2026-03-05T08:00:00Z', { country: 'FR', deviceType: 'tablet', userAgent: IPHONE, utcOffsetHours: 1 }, { campaign: 'Retarget_March', source: 'fb' }),
  visitor(
    '2026-03-05T20:00:00Z',
    { country: 'BR', deviceType: 'mobile', userAgent: IPHONE, utcOffsetHours: -3 },
    { campaign: 'spring_latam', source: 'google' },
  ),
  visitor('2026-03-06T13:00:00Z', { country: 'GB', deviceType: 'desktop', userAgent: CHROME, utcOffsetHours: 0 }, { campaign: 'newsletter' }),
  visitor(
    '2026-03-06T04:00:00Z',
    { country: 'US', deviceType: 'desktop', userAgent: 'Mozilla/5.0 (compatible; AdsBot-Google; +http://www.google.com/adsbot.html)' },
    {
      campaign: 'spring_sale',
      source: 'google',
    },
  ),
];
export const VISITOR_COUNT = BENCH_VISITORS.length;

export function entranceInput(v: BenchVisitor, idTrafficSource: string, random: RandomSource, ids: IdSource): WalkInput {
  return { visitor: v.entrance, session: null, step: { entrance: { idTrafficSource } }, random, ids };
}

export function actionInput(v: BenchVisitor, session: RoutingSession, random: RandomSource, ids: IdSource): WalkInput {
  return { visitor: v.action, session, step: { action: 1 }, random, ids };
}
