import { randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { AdPlatformError, type AdPlatformTokens, type ConversionToUpload, costWindowOf } from '@funnel/integrations-domain';
import { newPkcePair } from '../../oauth/oauth-client';
import type { ProviderSettings } from '../provider-settings';
import { FakeMicrosoftAds } from './fixtures/microsoft-api.fixture';
import { MicrosoftAdPlatform } from './microsoft-ad-platform';

const REDIRECT = 'https://app.example.com/integrations/callback';
const SCOPE = 'https://ads.microsoft.com/msads.manage offline_access';
const CLICK = 'f894f652ea334e739002f7167ab8f8e3';
const CLICK2 = '0123456789abcdef0123456789abcdef';

describe('Microsoft Advertising adapter against oauth2-mock-server and a local REST API', () => {
  const oauth = new OAuth2Server();
  const ads = new FakeMicrosoftAds({
    developerToken: 'dev-token-1',
    accounts: [
      { id: '180001', customerId: '250001', name: 'Shop EU', currency: 'EUR', timeZone: 'BrusselsCopenhagenMadridParis' },
      { id: '180002', customerId: '250002', name: 'Shop US', currency: 'USD', timeZone: 'PacificTimeUSCanadaTijuana' },
      { id: '180003', customerId: '250001', name: 'Closed', currency: 'EUR', timeZone: 'BrusselsCopenhagenMadridParis', status: 'Inactive' },
    ],
    goals: {
      '180002': [
        { id: '4001', name: 'Qualified lead' },
        { id: '4002', name: 'Old offline goal', status: 'Deleted' },
        { id: '4003', name: 'Site purchase', type: 'Event' },
      ],
    },
    spend: {
      '180002': [
        { day: '2026-03-09', campaignId: '7001', spend: '1.50' },
        { day: '2026-03-10', campaignId: '7001', spend: '12.34' },
        { day: '2026-03-10', campaignId: '7002', spend: '0.66' },
        { day: '2026-03-11', campaignId: '7001', spend: '3.00' },
      ],
    },
  });
  const tokenRequests: URLSearchParams[] = [];
  let settings: ProviderSettings;
  let microsoft: MicrosoftAdPlatform;
  /** The next token answers are this OAuth error (400) instead. */
  let refuseTokens: string | null = null;

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
    // Every token its own (two issued in the same second would otherwise be the same JWT).
    oauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
      token.payload.jti = randomUUID();
    });
    oauth.service.on('beforeResponse', (response: { body: Record<string, unknown>; statusCode: number }, req: { body: Record<string, string> }) => {
      if (req.body?.grant_type) tokenRequests.push(new URLSearchParams(req.body));
      // The Microsoft identity platform answers no id_token without the openid scope.
      delete response.body.id_token;
      if (refuseTokens) {
        response.statusCode = 400;
        response.body = { error: refuseTokens, error_description: 'AADSTS70000: The provided grant is invalid or expired.' };
      }
    });
    const urls = await ads.start();
    settings = {
      clientId: 'ms-app',
      clientSecret: 'ms-secret',
      authUrl: `${oauth.issuer.url}/authorize`,
      tokenUrl: `${oauth.issuer.url}/token`,
      apiUrl: urls.apiUrl,
      timeoutMs: 5000,
      extra: { customerUrl: urls.customerUrl, reportingUrl: urls.reportingUrl, developerToken: 'dev-token-1' },
    };
    microsoft = new MicrosoftAdPlatform(settings, { polling: { pausesMs: [20], maxPolls: 5 } });
  });
  afterAll(async () => {
    await oauth.stop();
    await ads.stop();
  });
  beforeEach(() => {
    refuseTokens = null;
    ads.pendingPolls = 1;
    ads.failReports = false;
    ads.downloadUrl = undefined;
  });

  async function connect(): Promise<AdPlatformTokens> {
    const { verifier, challenge } = await newPkcePair();
    const url = microsoft.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: challenge });
    const answer = await fetch(url, { redirect: 'manual' });
    const location = new URL(answer.headers.get('location')!);
    return microsoft.exchangeCode({ code: location.searchParams.get('code')!, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
  }

  const conversion = (over: Partial<ConversionToUpload> = {}): ConversionToUpload => ({
    eventId: 'hit1:tx1',
    clickId: CLICK,
    clickedAt: new Date(Date.now() - 3 * 86_400_000).toISOString(),
    occurredAt: '2026-11-20T10:00:00.000Z',
    clientIp: '203.0.113.7',
    externalId: 'visitor-1',
    value: 49.9,
    currency: 'USD',
    ...over,
  });

  it('is configured with its client and developer token; refreshes, cannot revoke, uploads 1,000 per request to offline goals by msclkid', () => {
    expect(microsoft.configured).toBe(true);
    expect(new MicrosoftAdPlatform({ ...settings, extra: { ...settings.extra, developerToken: undefined } }).configured).toBe(false);
    expect(microsoft.capabilities).toEqual({
      costSync: true,
      conversionUpload: true,
      pkce: true,
      refresh: true,
      revoke: false,
      uploadBatchLimit: 1000,
      uploadMaxAgeDays: 90,
      needs: { goalEventName: false, clickIdFields: ['msclkid', 'external'] },
    });
  });

  it('sends the user to the authorization endpoint with the Microsoft Advertising scopes and PKCE, and exchanges the code with the verifier, secret and scopes', async () => {
    const { verifier, challenge } = await newPkcePair();
    const url = microsoft.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: challenge });
    expect(`${url.origin}${url.pathname}`).toBe(`${oauth.issuer.url}/authorize`);
    expect(Object.fromEntries(url.searchParams)).toEqual({
      client_id: 'ms-app',
      response_type: 'code',
      redirect_uri: REDIRECT,
      scope: SCOPE,
      state: 'state-1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    const location = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
    const tokens = await microsoft.exchangeCode({ code: location.searchParams.get('code')!, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
    const sent = tokenRequests.at(-1)!;
    expect(Object.fromEntries(sent)).toEqual({
      grant_type: 'authorization_code',
      code: location.searchParams.get('code'),
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: 'ms-app',
      client_secret: 'ms-secret',
      scope: SCOPE,
    });
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.scopes).toEqual(['https://ads.microsoft.com/msads.manage', 'offline_access']);
    expect(Date.parse(tokens.expiresAt!) - Date.now()).toBeGreaterThan(50 * 60 * 1000);
  });

  it('refreshes with the refresh token and the scopes, keeps the rotated refresh token, and answers a refused refresh token as a lost authorization', async () => {
    const tokens = await connect();
    const refreshed = await microsoft.refresh(tokens);
    expect(Object.fromEntries(tokenRequests.at(-1)!)).toEqual({
      grant_type: 'refresh_token',
      refresh_token: tokens.refreshToken,
      client_id: 'ms-app',
      client_secret: 'ms-secret',
      scope: SCOPE,
    });
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    // Microsoft rotates refresh tokens: the new one is the one kept.
    expect(refreshed.refreshToken).toEqual(expect.any(String));
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect((await microsoft.listAdAccounts(refreshed)).length).toBe(2);

    refuseTokens = 'invalid_grant';
    await expect(microsoft.refresh(refreshed)).rejects.toMatchObject({ kind: 'auth', message: expect.stringContaining('invalid_grant') });
    await expect(microsoft.refresh({ ...refreshed, refreshToken: null })).rejects.toMatchObject({ kind: 'auth' });
    // No revocation endpoint: nothing is called.
    const calls = ads.requests.length;
    await expect(microsoft.revoke()).resolves.toBe(false);
    expect(ads.requests.length).toBe(calls);
  });

  it('lists the ad accounts the user reaches (GetUser, SearchAccounts by user) with currency and the IANA zone, the deleted ones left out', async () => {
    const tokens = await connect();
    const before = ads.requests.length;
    expect(await microsoft.listAdAccounts(tokens)).toEqual([
      { id: '250001-180001', name: 'Shop EU', currency: 'EUR', timezone: 'Europe/Paris' },
      { id: '250002-180002', name: 'Shop US', currency: 'USD', timezone: 'America/Los_Angeles' },
    ]);
    const [user, search] = ads.requests.slice(before);
    expect(user).toMatchObject({
      method: 'POST',
      path: '/CustomerManagement/v13/User/Query',
      authorization: `Bearer ${tokens.accessToken}`,
      developerToken: 'dev-token-1',
      customerId: undefined,
      customerAccountId: undefined,
      body: { UserId: null },
    });
    expect(search).toMatchObject({
      path: '/CustomerManagement/v13/Accounts/Search',
      authorization: `Bearer ${tokens.accessToken}`,
      developerToken: 'dev-token-1',
      body: {
        Predicates: [{ Field: 'UserId', Operator: 'Equals', Value: '9001' }],
        Ordering: [{ Field: 'Id', Order: 'Ascending' }],
        PageInfo: { Index: 0, Size: 1000 },
      },
    });
  });

  it('reads every page of SearchAccounts (1,000 accounts a page)', async () => {
    const many = new FakeMicrosoftAds({
      developerToken: 'dev-token-1',
      accounts: Array.from({ length: 1001 }, (_, i) => ({
        id: String(300000 + i),
        customerId: '250009',
        name: `Account ${i}`,
        currency: 'GBP',
        timeZone: 'GreenwichMeanTimeDublinEdinburghLisbonLondon',
      })),
    });
    const urls = await many.start();
    try {
      const adapter = new MicrosoftAdPlatform({ ...settings, apiUrl: urls.apiUrl, extra: { ...settings.extra, ...urls } });
      const accounts = await adapter.listAdAccounts(await connect());
      expect(accounts).toHaveLength(1001);
      expect(accounts.at(-1)).toEqual({ id: '250009-301000', name: 'Account 1000', currency: 'GBP', timezone: 'Europe/London' });
      expect(many.requests.filter((r) => r.path.endsWith('/Accounts/Search')).map((r) => (r.body as any).PageInfo)).toEqual([
        { Index: 0, Size: 1000 },
        { Index: 1, Size: 1000 },
      ]);
    } finally {
      await many.stop();
    }
  });

  it("lists the ad account's offline conversion goals (GetConversionGoalsByIds by type), naming the account and its manager account", async () => {
    const tokens = await connect();
    expect(await microsoft.listConversionGoals(tokens, '250002-180002')).toEqual([{ id: '4001', name: 'Qualified lead', type: 'offline_goal' }]);
    expect(ads.requests.at(-1)).toMatchObject({
      path: '/CampaignManagement/v13/ConversionGoals/QueryByIds',
      authorization: `Bearer ${tokens.accessToken}`,
      developerToken: 'dev-token-1',
      customerId: '250002',
      customerAccountId: '180002',
      body: { ConversionGoalIds: null, ConversionGoalTypes: 'OfflineConversion' },
    });
    // An account named without its manager account, or under another one.
    await expect(microsoft.listConversionGoals(tokens, '180002')).rejects.toMatchObject({ kind: 'refused' });
    await expect(microsoft.listConversionGoals(tokens, '250001-180002')).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('CampaignServiceInvalidAccountId 1102'),
    });
  });

  it("pulls spend per campaign and day of the account's time zone: a daily campaign performance report, polled, downloaded without the token and unzipped", async () => {
    const tokens = await connect();
    // 2026-03-10 in Los Angeles (PDT, UTC-7): 07:00Z on the 10th to 07:00Z on the 11th.
    const window = costWindowOf('2026-03-10T07:00:00.000Z', '2026-03-11T07:00:00.000Z', 'America/Los_Angeles');
    expect(window).toEqual({ since: '2026-03-10', until: '2026-03-10', timezone: 'America/Los_Angeles' });
    const before = ads.requests.length;
    expect(await microsoft.pullCosts(tokens, '250002-180002', window)).toEqual([
      { campaignId: '7001', day: '2026-03-10', spend: 12.34, currency: 'USD' },
      { campaignId: '7002', day: '2026-03-10', spend: 0.66, currency: 'USD' },
    ]);
    const calls = ads.requests.slice(before);
    expect(calls.map((r) => r.path)).toEqual([
      '/Reporting/v13/GenerateReport/Submit',
      '/Reporting/v13/GenerateReport/Poll',
      '/Reporting/v13/GenerateReport/Poll',
      expect.stringMatching(/^\/download\/\w+\.zip$/),
    ]);
    expect(calls[0]).toMatchObject({
      authorization: `Bearer ${tokens.accessToken}`,
      developerToken: 'dev-token-1',
      customerId: '250002',
      customerAccountId: '180002',
    });
    expect(calls[0].body).toEqual({
      ReportRequest: {
        Type: 'CampaignPerformanceReportRequest',
        ReportName: 'Spend 2026-03-10..2026-03-10',
        Format: 'Csv',
        FormatVersion: '2.0',
        ExcludeReportHeader: true,
        ExcludeReportFooter: true,
        ExcludeColumnHeaders: false,
        ReturnOnlyCompleteData: false,
        Aggregation: 'Daily',
        Columns: ['TimePeriod', 'CampaignId', 'CurrencyCode', 'Spend'],
        Scope: { AccountIds: ['180002'] },
        Time: { CustomDateRangeStart: { Year: 2026, Month: 3, Day: 10 }, CustomDateRangeEnd: { Year: 2026, Month: 3, Day: 10 } },
      },
    });
    const reportId = ads.downloads.at(-1)!.reportId;
    expect(calls[1].body).toEqual({ ReportRequestId: reportId });
    // The storage address gets no token.
    expect(calls[3].authorization).toBeUndefined();

    // Three days: the report's days, each its own row.
    const days = await microsoft.pullCosts(tokens, '250002-180002', { since: '2026-03-09', until: '2026-03-11', timezone: 'America/Los_Angeles' });
    expect(days.map((d) => `${d.day} ${d.campaignId} ${d.spend}`)).toEqual([
      '2026-03-09 7001 1.5',
      '2026-03-10 7001 12.34',
      '2026-03-10 7002 0.66',
      '2026-03-11 7001 3',
    ]);
  });

  it('answers an empty report (no download address) as no rows, a report in status Error or never ready as unavailable, and refuses a download address off the outbound rule', async () => {
    const tokens = await connect();
    const downloads = ads.downloads.length;
    expect(await microsoft.pullCosts(tokens, '250002-180002', { since: '2026-01-01', until: '2026-01-02', timezone: 'America/Los_Angeles' })).toEqual([]);
    expect(ads.downloads.length).toBe(downloads);

    const window = { since: '2026-03-10', until: '2026-03-10', timezone: 'America/Los_Angeles' };
    ads.failReports = true;
    await expect(microsoft.pullCosts(tokens, '250002-180002', window)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('Error'),
    });
    ads.failReports = false;

    // Bounded: 5 polls (pauses of 20 ms here), then given up for a later attempt.
    ads.pendingPolls = 100;
    const polls = ads.requests.length;
    await expect(microsoft.pullCosts(tokens, '250002-180002', window)).rejects.toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('not ready'),
    });
    expect(ads.requests.slice(polls).filter((r) => r.path.endsWith('/Poll'))).toHaveLength(5);
    ads.pendingPolls = 0;

    // Another origin over plain http, or https to a private address: refused without a connection.
    ads.downloadUrl = 'http://localhost:9/report.zip';
    await expect(microsoft.pullCosts(tokens, '250002-180002', window)).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('not https'),
    });
    ads.downloadUrl = 'https://10.0.0.1/report.zip';
    await expect(microsoft.pullCosts(tokens, '250002-180002', window)).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('not a public address'),
    });
    expect(ads.downloads.length).toBe(downloads);
  });

  it("applies offline conversions to the goal by its name, msclkid as MicrosoftClickId, value and currency; Microsoft's partial errors come back rejected by event id", async () => {
    const tokens = await connect();
    const before = ads.requests.length;
    const outcome = await microsoft.uploadConversions(tokens, { adAccountId: '250002-180002', goalId: '4001', eventName: null }, [
      conversion(),
      conversion({ eventId: 'hit2:', clickId: 'not-a-click-id', occurredAt: '2026-11-20T11:00:00.000Z' }),
      conversion({ eventId: 'hit3:tx9', clickId: CLICK2, occurredAt: '2026-11-21T09:30:00Z', value: null, currency: null }),
    ]);
    expect(outcome.accepted).toBe(2);
    expect(outcome.rejected).toEqual([{ eventId: 'hit2:', reason: 'OfflineConversionMicrosoftClickIdInvalid The click ID is invalid.' }]);
    const [goal, apply] = ads.requests.slice(before);
    // The goal's current name, read by id.
    expect(goal.body).toEqual({ ConversionGoalIds: ['4001'], ConversionGoalTypes: 'OfflineConversion' });
    expect(apply).toMatchObject({
      path: '/CampaignManagement/v13/OfflineConversions/Apply',
      authorization: `Bearer ${tokens.accessToken}`,
      developerToken: 'dev-token-1',
      customerId: '250002',
      customerAccountId: '180002',
    });
    // No user data: Microsoft's hashed email and phone are not what we hold (the visitor id and IP are not sent).
    expect(apply.body).toEqual({
      OfflineConversions: [
        {
          MicrosoftClickId: CLICK,
          ConversionName: 'Qualified lead',
          ConversionTime: '2026-11-20T10:00:00.000Z',
          ConversionValue: 49.9,
          ConversionCurrencyCode: 'USD',
        },
        {
          MicrosoftClickId: 'not-a-click-id',
          ConversionName: 'Qualified lead',
          ConversionTime: '2026-11-20T11:00:00.000Z',
          ConversionValue: 49.9,
          ConversionCurrencyCode: 'USD',
        },
        { MicrosoftClickId: CLICK2, ConversionName: 'Qualified lead', ConversionTime: '2026-11-21T09:30:00.000Z' },
      ],
    });
    expect(outcome.answer).toEqual({ PartialErrors: [expect.objectContaining({ Index: 1, ErrorCode: 'OfflineConversionMicrosoftClickIdInvalid' })] });

    // Sent again (a retried job): Microsoft counts one conversion per click id, time and goal.
    await microsoft.uploadConversions(tokens, { adAccountId: '250002-180002', goalId: '4001', eventName: null }, [conversion()]);
    expect(ads.conversions.filter((c) => c.MicrosoftClickId === CLICK && c.ConversionTime === '2026-11-20T10:00:00.000Z')).toHaveLength(1);
  });

  it('refuses more than 1,000 conversions, an unknown or deleted goal, and leaves out clicks older than 90 days without sending them', async () => {
    const tokens = await connect();
    const goal = { adAccountId: '250002-180002', goalId: '4001', eventName: null };
    const before = ads.requests.length;
    await expect(
      microsoft.uploadConversions(
        tokens,
        goal,
        Array.from({ length: 1001 }, (_, i) => conversion({ eventId: `h${i}` })),
      ),
    ).rejects.toMatchObject({
      kind: 'refused',
    });
    expect(ads.requests.length).toBe(before);
    await expect(microsoft.uploadConversions(tokens, { ...goal, goalId: '4002' }, [conversion()])).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('no offline conversion goal 4002'),
    });

    const old = conversion({ eventId: 'old:', clickedAt: new Date(Date.now() - 91 * 86_400_000).toISOString() });
    const timeless = conversion({ eventId: 'timeless:', occurredAt: 'yesterday' });
    const applies = () => ads.requests.filter((r) => r.path.endsWith('/OfflineConversions/Apply')).length;
    const sentBefore = applies();
    expect(await microsoft.uploadConversions(tokens, goal, [old, timeless])).toEqual({
      accepted: 0,
      rejected: [
        { eventId: 'old:', reason: 'the click is older than 90 days' },
        { eventId: 'timeless:', reason: 'the conversion has no valid time' },
      ],
      answer: { PartialErrors: [] },
    });
    expect(applies()).toBe(sentBefore);
  });

  it('maps failures to the port: an expired token is auth (its code, never the token), CallRateExceeded is rate_limited with Retry-After, a 5xx unavailable', async () => {
    const tokens = await connect();
    await microsoft.listAdAccounts(tokens);
    ads.expireTokens();
    const failure = await microsoft.listAdAccounts(tokens).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AdPlatformError);
    expect(failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('AuthenticationTokenExpired 109') });
    expect((failure as Error).message).toContain('TrackingId fake-tracking-id');
    expect((failure as Error).message).not.toContain(tokens.accessToken);

    const fresh = await connect();
    ads.throttleNext = 1;
    await expect(microsoft.listConversionGoals(fresh, '250002-180002')).rejects.toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 1,
      message: expect.stringContaining('CallRateExceeded 117'),
    });
    ads.failNext = 1;
    await expect(microsoft.pullCosts(fresh, '250002-180002', { since: '2026-03-10', until: '2026-03-10', timezone: 'UTC' })).rejects.toMatchObject({
      kind: 'unavailable',
    });
    // A wrong developer token is refused by Microsoft as invalid credentials.
    const wrong = new MicrosoftAdPlatform({ ...settings, extra: { ...settings.extra, developerToken: 'other' } });
    await expect(wrong.listAdAccounts(fresh)).rejects.toMatchObject({ message: expect.stringContaining('InvalidCredentials 105') });
    expect(await microsoft.listConversionGoals(fresh, '250002-180002')).toHaveLength(1);
  });
});
