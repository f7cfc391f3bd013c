import { clientAddress } from './client-address';
import { UNKNOWN_GEO, geoAttributes } from './geo/geo-record';
import { languagesOf } from './languages';
import { UNKNOWN_NETWORK } from './network';
import { UNKNOWN_DEVICE } from './user-agent';
import { ResolvedVisitorParts, routingVisitorOf, visitorAttributesOf } from './visitor-attributes';

const nothing: ResolvedVisitorParts = {
  address: clientAddress(undefined),
  geo: UNKNOWN_GEO,
  zone: { timezone: 'unknown' },
  network: UNKNOWN_NETWORK,
  device: UNKNOWN_DEVICE,
  languages: languagesOf(undefined),
  userAgent: undefined,
  referrer: undefined,
  currentURL: 'unknown',
  trackingDomain: 'unknown',
};

describe('visitorAttributesOf', () => {
  it('holds unknown in every attribute of a request it knows nothing of, but an empty referrer (routing then reads initialReferrer)', () => {
    const attributes = visitorAttributesOf(nothing);
    expect(attributes.referrer).toBe('');
    expect(attributes).not.toHaveProperty('utcOffsetHours');
    const { referrer: _referrer, ...rest } = attributes;
    expect(new Set(Object.values(rest))).toEqual(new Set(['unknown']));
    expect(Object.keys(rest).sort()).toEqual(
      [
        'browser',
        'browserLanguage',
        'browserVersion',
        'brand',
        'city',
        'connectionType',
        'continent',
        'country',
        'currentURL',
        'deviceType',
        'ip',
        'isp',
        'mainLanguage',
        'mobileCarrier',
        'model',
        'os',
        'osVersion',
        'region',
        'timezone',
        'trackingDomain',
        'userAgent',
      ].sort(),
    );
  });

  it('carries what was resolved, the whole-hour offset included', () => {
    const attributes = visitorAttributesOf({
      ...nothing,
      address: clientAddress('81.2.69.142'),
      geo: geoAttributes({ country_code: 'GB', city: 'Bracknell', state1: 'England', timezone: 'Europe/London' }),
      zone: { timezone: 'GMT+1', utcOffsetHours: 1 },
      languages: languagesOf('en-GB'),
      userAgent: 'curl/8.4.0',
      referrer: 'https://www.google.com/',
    });
    expect(attributes).toMatchObject({
      ip: '81.2.69.142',
      country: 'GB',
      city: 'Bracknell',
      region: 'England',
      continent: 'Europe',
      timezone: 'GMT+1',
      utcOffsetHours: 1,
      mainLanguage: 'en',
      browserLanguage: 'en-GB',
      userAgent: 'curl/8.4.0',
      referrer: 'https://www.google.com/',
    });
  });
});

describe('routingVisitorOf', () => {
  it('is the engine visitor of the attributes, time, parameters and address', () => {
    const attributes = visitorAttributesOf(nothing);
    expect(routingVisitorOf(attributes, 1_700_000_000_000, { c1: 'x' }, '')).toEqual({ attributes, time: 1_700_000_000_000, params: { c1: 'x' }, ip: '' });
  });
});
