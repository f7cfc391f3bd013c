import { createHash } from 'node:crypto';
import { AdPlatformError, type AdPlatformTokens, type ConversionToUpload } from '@funnel/integrations-domain';
import { FakeTikTokApi } from './fixtures/tiktok-api.fixture';
import { TikTokAdPlatform } from './tiktok-ad-platform';

const REDIRECT = 'https://app.example.com/integrations/callback';
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

function conversion(eventId: string, overrides: Partial<ConversionToUpload> = {}): ConversionToUpload {
  return {
    eventId,
    clickId: `E.C.P.${eventId}`,
    clickedAt: '2026-01-01T09:00:00.000Z',
    occurredAt: '2026-01-01T10:00:00.000Z',
    clientIp: null,
    externalId: null,
    value: null,
    currency: null,
    ...overrides,
  };
}

describe('TikTok adapter against a local TikTok API for Business', () => {
  const api = new FakeTikTokApi({
    appId: 'tt-app',
    secret: 'tt-secret',
    advertisers: [
      { advertiser_id: '7001', name: 'Shop EU', currency: 'EUR', timezone: 'Etc/GMT-1', display_timezone: 'Europe/Paris' },
      // An advertiser whose display zone Intl does not know: its offset zone is used.
      { advertiser_id: '7002', name: 'Shop Asia', currency: 'USD', timezone: 'Etc/GMT-8', display_timezone: 'Asia/Atlantis' },
    ],
    // 25 pixels: two pages of 20.
    pixels: {
      '7001': Array.from({ length: 25 }, (_, i) => ({ pixel_id: `9${i}`, pixel_code: `CPIXEL${String(i).padStart(2, '0')}`, pixel_name: `Pixel ${i}` })),
    },
    report: {
      '7001': [
        { campaign_id: '1801', day: '2026-01-01', spend: '10.50' },
        { campaign_id: '1802', day: '2026-01-01', spend: '3.25' },
        { campaign_id: '1803', day: '2026-01-15', spend: '0.75' },
        { campaign_id: '1801', day: '2026-01-31', spend: '7.00' },
        { campaign_id: '1801', day: '2026-02-09', spend: '1.00' },
        // Outside the window asked for.
        { campaign_id: '1801', day: '2026-02-10', spend: '99.00' },
      ],
    },
    maxPageSize: 2,
  });
  let tiktok: TikTokAdPlatform;

  beforeAll(async () => {
    const urls = await api.start();
    tiktok = new TikTokAdPlatform({ clientId: 'tt-app', clientSecret: 'tt-secret', ...urls, timeoutMs: 5000, extra: {} });
  });
  afterAll(() => api.stop());

  /** The user's browser at the authorization page: TikTok redirects back with auth_code and state. */
  async function authorize(state = 'state-1'): Promise<string> {
    const url = tiktok.authorizationUrl({ state, redirectUri: REDIRECT, codeChallenge: null });
    expect(Object.fromEntries(url.searchParams)).toEqual({ app_id: 'tt-app', state, redirect_uri: REDIRECT });
    const answer = await fetch(url, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const location = new URL(answer.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
    expect(location.searchParams.get('state')).toBe(state);
    return location.searchParams.get('auth_code')!;
  }

  async function connect(): Promise<AdPlatformTokens> {
    return tiktok.exchangeCode({ code: await authorize(), state: 'state-1', redirectUri: REDIRECT, codeVerifier: null });
  }

  it('sends the user to the advertiser authorization page and exchanges the auth code (JSON app_id, secret, auth_code) for a token that does not expire', async () => {
    expect(tiktok.configured).toBe(true);
    expect(tiktok.capabilities).toMatchObject({
      pkce: false,
      refresh: false,
      revoke: true,
      needs: { goalEventName: true, clickIdFields: ['ttclid', 'external'] },
    });
    const code = await authorize();
    const tokens = await tiktok.exchangeCode({ code, state: 'state-1', redirectUri: REDIRECT, codeVerifier: null });
    expect(tokens).toEqual({ accessToken: expect.stringMatching(/^act\.tiktok/), refreshToken: null, expiresAt: null, scopes: ['1', '4', '5', '10'] });
    const exchange = api.requests.filter((r) => r.path === '/oauth2/access_token/').at(-1)!;
    expect(exchange).toMatchObject({ method: 'POST', accessToken: undefined, body: { app_id: 'tt-app', secret: 'tt-secret', auth_code: code } });

    // An auth code is good once: the second exchange is refused (not an expired login).
    const again = await tiktok.exchangeCode({ code, state: 'state-1', redirectUri: REDIRECT, codeVerifier: null }).catch((error: unknown) => error);
    expect(again).toMatchObject({ kind: 'refused', message: expect.stringContaining('code 40110') });
    // Nothing to refresh: a lost token needs the user again.
    await expect(tiktok.refresh()).rejects.toMatchObject({ kind: 'auth' });
  });

  it('lists the advertisers that authorized the app with their currency and IANA time zone, the Access-Token header on each call', async () => {
    const tokens = await connect();
    const before = api.requests.length;
    expect(await tiktok.listAdAccounts(tokens)).toEqual([
      { id: '7001', name: 'Shop EU', currency: 'EUR', timezone: 'Europe/Paris' },
      { id: '7002', name: 'Shop Asia', currency: 'USD', timezone: 'Etc/GMT-8' },
    ]);
    const [get, info] = api.requests.slice(before);
    expect(get).toMatchObject({
      method: 'GET',
      path: '/oauth2/advertiser/get/',
      query: { app_id: 'tt-app', secret: 'tt-secret' },
      accessToken: tokens.accessToken,
    });
    expect(info).toMatchObject({ path: '/advertiser/info/', accessToken: tokens.accessToken });
    expect(JSON.parse(info.query.advertiser_ids)).toEqual(['7001', '7002']);
    expect(JSON.parse(info.query.fields)).toEqual(expect.arrayContaining(['currency', 'timezone', 'display_timezone']));
  });

  it('lists the pixels of an advertiser over every page, the pixel code as the goal id', async () => {
    const tokens = await connect();
    const before = api.requests.length;
    const goals = await tiktok.listConversionGoals(tokens, '7001');
    expect(goals).toHaveLength(25);
    expect(goals[0]).toEqual({ id: 'CPIXEL00', name: 'Pixel 0', type: 'pixel' });
    expect(goals.at(-1)).toEqual({ id: 'CPIXEL24', name: 'Pixel 24', type: 'pixel' });
    const pages = api.requests.slice(before);
    expect(pages.map((r) => r.query.page)).toEqual(Array.from({ length: 13 }, (_, i) => String(i + 1)));
    expect(pages.every((r) => r.path === '/pixel/list/' && r.query.advertiser_id === '7001' && r.query.page_size === '20')).toBe(true);
    expect(await tiktok.listConversionGoals(tokens, '7002')).toEqual([]);
  });

  it('pulls spend per campaign and day of the advertiser zone, in report windows of at most 30 days, over every page', async () => {
    const tokens = await connect();
    const before = api.requests.length;
    const costs = await tiktok.pullCosts(tokens, '7001', { since: '2026-01-01', until: '2026-02-09', timezone: 'Europe/Paris' });
    expect(costs).toEqual([
      { campaignId: '1801', day: '2026-01-01', spend: 10.5, currency: 'EUR' },
      { campaignId: '1802', day: '2026-01-01', spend: 3.25, currency: 'EUR' },
      { campaignId: '1803', day: '2026-01-15', spend: 0.75, currency: 'EUR' },
      { campaignId: '1801', day: '2026-01-31', spend: 7, currency: 'EUR' },
      { campaignId: '1801', day: '2026-02-09', spend: 1, currency: 'EUR' },
    ]);
    const reports = api.requests.slice(before).filter((r) => r.path === '/report/integrated/get/');
    // 40 days: 2026-01-01..01-30 (3 rows, pages of 2), then 2026-01-31..02-09.
    expect(reports.map((r) => [r.query.start_date, r.query.end_date, r.query.page])).toEqual([
      ['2026-01-01', '2026-01-30', '1'],
      ['2026-01-01', '2026-01-30', '2'],
      ['2026-01-31', '2026-02-09', '1'],
    ]);
    expect(reports[0].query).toMatchObject({ advertiser_id: '7001', report_type: 'BASIC', data_level: 'AUCTION_CAMPAIGN', page_size: '1000' });
    expect(JSON.parse(reports[0].query.dimensions)).toEqual(['campaign_id', 'stat_time_day']);
    expect(JSON.parse(reports[0].query.metrics)).toEqual(['spend']);
    expect(reports.every((r) => r.accessToken === tokens.accessToken)).toBe(true);
  });

  it('sends conversions to the pixel with the Events API: ttclid and IP as they are, the external id SHA-256 hashed, the event id for deduplication', async () => {
    const tokens = await connect();
    const outcome = await tiktok.uploadConversions(tokens, { adAccountId: '7001', goalId: 'CPIXEL03', eventName: 'CompletePayment' }, [
      conversion('hit1:tx1', { clientIp: '203.0.113.7', externalId: ' Visitor1 ', value: 12.5, currency: 'EUR' }),
      conversion('hit2'),
    ]);
    expect(outcome).toEqual({ accepted: 2, rejected: [], answer: { code: 0, message: 'OK', request_id: expect.any(String) } });
    const sent = api.requests.filter((r) => r.path === '/event/track/').at(-1)!;
    expect(sent.accessToken).toBe(tokens.accessToken);
    expect(sent.body).toEqual({
      event_source: 'web',
      event_source_id: 'CPIXEL03',
      data: [
        {
          event: 'CompletePayment',
          event_time: 1767261600,
          event_id: 'hit1:tx1',
          // SHA-256 (hex) of the trimmed visitor id.
          user: { ttclid: 'E.C.P.hit1:tx1', ip: '203.0.113.7', external_id: sha256('Visitor1') },
          properties: { value: 12.5, currency: 'EUR' },
        },
        { event: 'CompletePayment', event_time: 1767261600, event_id: 'hit2', user: { ttclid: 'E.C.P.hit2' } },
      ],
    });
    expect(api.events.filter((e) => e.pixelCode === 'CPIXEL03').map((e) => e.event.event_id)).toEqual(['hit1:tx1', 'hit2']);
  });

  it('takes batches up to the Events API limit and refuses a larger one without calling TikTok', async () => {
    const tokens = await connect();
    const goal = { adAccountId: '7001', goalId: 'CPIXEL04', eventName: 'CompletePayment' };
    const full = Array.from({ length: tiktok.capabilities.uploadBatchLimit }, (_, i) => conversion(`hit${i}`));
    expect((await tiktok.uploadConversions(tokens, goal, full)).accepted).toBe(1000);
    expect(api.events.filter((e) => e.pixelCode === 'CPIXEL04')).toHaveLength(1000);
    const calls = api.requests.length;
    await expect(tiktok.uploadConversions(tokens, goal, [...full, conversion('one-more')])).rejects.toMatchObject({ kind: 'refused' });
    expect(api.requests.length).toBe(calls);
    // A pixel the advertiser does not have: TikTok's own refusal (code 40002).
    await expect(tiktok.uploadConversions(tokens, { ...goal, goalId: 'CNOPE' }, [conversion('x')])).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('code 40002'),
    });
  });

  it('maps TikTok return codes and HTTP statuses to the port errors, the token never in a message', async () => {
    const tokens = await connect();
    const failure = async () => {
      const error = await tiktok.listConversionGoals(tokens, '7001').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AdPlatformError);
      expect((error as Error).message).not.toContain(tokens.accessToken);
      return error as AdPlatformError;
    };
    // Rate limits: code 40100 with HTTP 200, or HTTP 429 with Retry-After.
    api.failNext({ code: 40100, message: 'Too many requests.' });
    expect(await failure()).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: undefined, message: expect.stringContaining('code 40100') });
    api.failNext({ status: 429, code: 40100, retryAfter: 7 });
    expect(await failure()).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 7 });
    // TikTok's own trouble: a 5xxxx code with HTTP 200, or an HTTP 5xx.
    api.failNext({ code: 50002, message: 'Service error, please retry.' });
    expect(await failure()).toMatchObject({ kind: 'unavailable' });
    api.failNext({ status: 503 });
    expect(await failure()).toMatchObject({ kind: 'unavailable' });
    api.failNext({ status: 401, code: 40105 });
    expect(await failure()).toMatchObject({ kind: 'auth' });
    // A wrong parameter is the request's fault.
    api.failNext({ code: 40002, message: 'Invalid parameter.' });
    expect(await failure()).toMatchObject({ kind: 'refused' });
    // The advertiser removed the app: code 40105 with HTTP 200.
    api.expireTokens();
    expect(await failure()).toMatchObject({ kind: 'auth', message: expect.stringContaining('code 40105') });
  });

  it('revokes the token (app_id, secret, access_token): it is refused from then on, and a second revocation answers false', async () => {
    const tokens = await connect();
    expect(await tiktok.revoke(tokens)).toBe(true);
    expect(api.revoked).toContain(tokens.accessToken);
    expect(api.requests.filter((r) => r.path === '/oauth2/revoke_token/').at(-1)!.body).toEqual({
      app_id: 'tt-app',
      secret: 'tt-secret',
      access_token: tokens.accessToken,
    });
    await expect(tiktok.listAdAccounts(tokens)).rejects.toMatchObject({ kind: 'auth' });
    expect(await tiktok.revoke(tokens)).toBe(false);
  });

  it('is not configured without an app id and secret, and never calls TikTok then', () => {
    const bare = new TikTokAdPlatform({
      clientId: undefined,
      clientSecret: undefined,
      authUrl: 'http://127.0.0.1:9/portal/auth',
      tokenUrl: 'http://127.0.0.1:9/t',
      apiUrl: 'http://127.0.0.1:9',
      timeoutMs: 1000,
      extra: {},
    });
    expect(bare.configured).toBe(false);
    expect(() => bare.authorizationUrl({ state: 's', redirectUri: REDIRECT, codeChallenge: null })).toThrow(AdPlatformError);
  });
});
