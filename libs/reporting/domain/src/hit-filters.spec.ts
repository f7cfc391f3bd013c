import { matchesEntranceQuery, matchesHitFilter } from './hit-filters';
import { resetFilterOf } from './reset';
import { aHit } from './testing/hits';

const window = { timeStart: '2026-01-10T00:00:00Z', timeEnd: '2026-01-11T00:00:00Z' };

describe('hit filters', () => {
  it.each([
    ['the start of the window', '2026-01-10T00:00:00.000Z', true],
    ['the end of the window', '2026-01-11T00:00:00.000Z', false],
    ['just before the end', '2026-01-10T23:59:59.999Z', true],
    ['just before the start', '2026-01-09T23:59:59.999Z', false],
  ])('a reset takes a hit at %s: %s', (_name, time, matches) => expect(matchesHitFilter(aHit({ time }), resetFilterOf(window))).toBe(matches));

  it.each([
    [{ restrictToCampaignIDs: ['FGROUP000001'] }, true],
    [{ restrictToCampaignIDs: ['FGROUP000002'] }, false],
    [{ restrictToFunnelIDs: ['FUNNEL000002', 'FUNNEL000001'] }, true],
    [{ restrictToTrafficSourceIDs: ['TSOURCE00002'] }, false],
    [{ restrictToCountryCodes: ['DE', 'US'] }, true],
    [{ restrictToVisitorIDs: ['VISITOR00002'] }, false],
    [{ restrictToIPs: ['203.0.113.7'] }, true],
    [{ restrictToTrackingFields: { external: ['a', 'b'] } }, true],
    [{ restrictToTrackingFields: { external: ['a'], c1: ['y'] } }, true],
    [{ restrictToTrackingFields: { external: ['a'], c1: ['z'] } }, false],
    [{ restrictToTrackingFields: { c2: ['x'] } }, false],
    [{ restrictToTrackingFields: { c2: [] } }, true],
  ])('a reset restricted by %j takes the hit: %s', (restriction, matches) =>
    expect(matchesHitFilter(aHit({ trackingFields: { external: 'a', c1: 'y' } }), resetFilterOf({ ...window, ...restriction }))).toBe(matches),
  );

  it.each([
    [{}, {}, true],
    [{ isEntrance: false }, {}, false],
    [{}, { funnelIds: ['FUNNEL000002'] }, false],
    [{}, { trafficSourceIds: ['TSOURCE00001'] }, true],
    [{}, { countryCode: 'US' }, true],
    [{}, { countryCode: 'DE' }, false],
    [{ trackingFields: { c1: 'v' } }, { trackingFields: [{ key: 'c1', value: 'v' }] }, true],
    [
      { trackingFields: { c1: 'v' } },
      {
        trackingFields: [
          { key: 'c1', value: 'v' },
          { key: 'c2', value: 'w' },
        ],
      },
      false,
    ],
  ])('a cost segment takes hit %j with %j: %s', (hit, query, matches) =>
    expect(matchesEntranceQuery(aHit(hit), { funnelIds: [], trafficSourceIds: [], ...window, ...query })).toBe(matches),
  );
});
