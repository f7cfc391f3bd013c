import { hitDefaults, type Hit } from '../hit';

/** A valid hit for tests; `overrides` replace its fields. */
export function aHit(overrides: Partial<Hit> = {}): Hit {
  return {
    hitId: 'HIT000000001',
    visitorId: 'VISITOR00001',
    accountId: 'ACCOUNT00001',
    idFunnel: 'FUNNEL000001',
    idFunnelGroup: 'FGROUP000001',
    idTrafficSource: 'TSOURCE00001',
    idNode: 'NODE00000001',
    idPage: 'PAGE00000001',
    countryCode: 'US',
    ip: '203.0.113.7',
    trackingFields: {},
    time: '2026-01-10T12:00:00.000Z',
    isEntrance: true,
    cost: '0',
    conversions: [],
    customEvents: {},
    postbackCalled: false,
    ...hitDefaults(),
    ...overrides,
  };
}
