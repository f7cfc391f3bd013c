import { OAuth2Server } from 'oauth2-mock-server';
import { AdPlatformError, type AdPlatformTokens, type ConversionToUpload, costWindowOf } from '@funnel/integrations-domain';
import { newPkcePair } from '../../oauth/oauth-client';
import { FakeGoogleAds } from './fixtures/google-ads-api.fixture';
import { GOOGLE_SCOPES, GoogleAdPlatform } from './google-ad-platform';

const REDIRECT = 'https://app.example.com/integrations/callback';
const ADWORDS = 'https://www.googleapis.com/auth/adwords';
const DATAMANAGER = 'https://www.googleapis.com/auth/datamanager';

const conversion = (n: number, overrides: Partial<ConversionToUpload> = {}): ConversionToUpload => ({
  eventId: `hit${n}:tx${n}`,
  clickId: `Cj0KCQgclid${n}`,
  clickedAt: '2026-03-10T08:00:00.000Z',
  occurredAt: '2026-03-10T10:00:00.000Z',
  clientIp: '203.0.113.7',
  externalId: 'visitor1',
  value: 12.5,
  currency: null,
  ...overrides,
});

describe('Google Ads adapter against oauth2-mock-server and a local Google Ads API and Data Manager API', () => {
  const oauth = new OAuth2Server();
  const google = new FakeGoogleAds({
    clientId: 'google-app',
    customers: [
      { id: '1111111111', descriptiveName: 'Shop', currencyCode: 'EUR', timeZone: 'Europe/Paris' },
      {
        id: '9000000000',
        descriptiveName: 'Agency MCC',
        currencyCode: 'USD',
        timeZone: 'America/New_York',
        manager: true,
        clients: ['2222222222', '3333333333'],
      },
      { id: '2222222222', descriptiveName: 'Client A', currencyCode: 'USD', timeZone: 'America/New_York' },
      { id: '3333333333', descriptiveName: 'Client B', currencyCode: 'GBP', timeZone: 'Europe/London' },
      { id: '4444444444', descriptiveName: 'Closed', currencyCode: 'EUR', timeZone: 'Europe/Paris', cancelled: true },
    ],
    conversionActions: {
      '1111111111': [
        { id: '501', name: 'Offline purchase', type: 'UPLOAD_CLICKS', status: 'ENABLED' },
        { id: '502', name: 'Website tag', type: 'WEBPAGE', status: 'ENABLED' },
        { id: '503', name: 'Old import', type: 'UPLOAD_CLICKS', status: 'REMOVED' },
      ],
      '2222222222': [{ id: '601', name: 'Lead import', type: 'UPLOAD_CLICKS', status: 'ENABLED' }],
    },
    costs: {
      '2222222222': [
        { campaignId: '71', date: '2026-03-08', costMicros: '1000000' },
        { campaignId: '71', date: '2026-03-09', costMicros: '12340000' },
        { campaignId: '72', date: '2026-03-09', costMicros: '500000' },
        { campaignId: '71', date: '2026-03-10', costMicros: '7000000' },
        { campaignId: '73', date: '2026-03-10', costMicros: '0' },
        { campaignId: '71', date: '2026-03-11', costMicros: '3000000' },
      ],
    },
    // Two rows a page, so paging is exercised.
    pageSize: 2,
    invalidGclids: ['not-a-gclid'],
  });
  let adapter: GoogleAdPlatform;
  const tokenRequests: URLSearchParams[] = [];

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
    oauth.service.on('beforeResponse', (_response: unknown, req: { body: Record<string, string> }) => {
      if (req.body?.grant_type) tokenRequests.push(new URLSearchParams(req.body));
    });
    google.attachTo(oauth.service);
    const { apiUrl, dataManagerUrl, revokeUrl } = await google.start();
    adapter = new GoogleAdPlatform({
      clientId: 'google-app',
      clientSecret: 'google-secret',
      authUrl: `${oauth.issuer.url}/authorize`,
      tokenUrl: `${oauth.issuer.url}/token`,
      apiUrl,
      timeoutMs: 5000,
      extra: { dataManagerUrl, revokeUrl },
    });
  });
  afterAll(async () => {
    await oauth.stop();
    await google.stop();
  });

  /** The user's consent at Google (the mock authorizes at once), optionally granting fewer scopes than asked (granular consent). */
  async function connect(grantedScopes?: string[]): Promise<AdPlatformTokens> {
    const { verifier, challenge } = await newPkcePair();
    const url = adapter.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: challenge });
    if (grantedScopes) url.searchParams.set('scope', grantedScopes.join(' '));
    const answer = await fetch(url, { redirect: 'manual' });
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('state-1');
    return adapter.exchangeCode({ code: location.searchParams.get('code')!, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
  }

  it('sends the user to Google for offline access with consent and PKCE, and exchanges the code for an access token and a refresh token', async () => {
    const { challenge } = await newPkcePair();
    const url = adapter.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: challenge });
    expect(url.searchParams.get('client_id')).toBe('google-app');
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(url.searchParams.get('scope')).toBe(`${ADWORDS} ${DATAMANAGER}`);
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('prompt')).toBe('consent');
    expect(url.searchParams.get('code_challenge')).toBe(challenge);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const tokens = await connect();
    const sent = tokenRequests.at(-1)!;
    expect(sent.get('grant_type')).toBe('authorization_code');
    expect(sent.get('client_id')).toBe('google-app');
    expect(sent.get('client_secret')).toBe('google-secret');
    expect(sent.get('code_verifier')).toEqual(expect.any(String));
    expect(sent.get('redirect_uri')).toBe(REDIRECT);
    expect(tokens.refreshToken).toEqual(expect.any(String));
    expect(tokens.scopes).toEqual([...GOOGLE_SCOPES]);
    // About an hour.
    const ttl = Date.parse(tokens.expiresAt!) - Date.now();
    expect(ttl).toBeGreaterThan(3000 * 1000);
    expect(ttl).toBeLessThanOrEqual(3600 * 1000);
    expect(adapter.capabilities).toMatchObject({ refresh: true, revoke: true, pkce: true, uploadBatchLimit: 2000, needs: { goalEventName: false } });
  });

  it('refreshes an expired access token keeping the refresh token (Google issues none on a refresh); revoking ends the grant', async () => {
    const tokens = await connect();
    google.expireTokens();
    await expect(adapter.listAdAccounts(tokens)).rejects.toMatchObject({ kind: 'auth' });

    const refreshed = await adapter.refresh(tokens);
    const sent = tokenRequests.at(-1)!;
    expect(sent.get('grant_type')).toBe('refresh_token');
    expect(sent.get('refresh_token')).toBe(tokens.refreshToken);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    expect(refreshed.refreshToken).toBe(tokens.refreshToken);
    expect(refreshed.scopes).toEqual([...GOOGLE_SCOPES]);
    expect(await adapter.listAdAccounts(refreshed)).toHaveLength(3);

    // The refresh token is revoked form-encoded: the grant's access tokens stop working, and so does the refresh token.
    expect(await adapter.revoke(refreshed)).toBe(true);
    const revoke = google.requests.filter((r) => r.path === '/revoke').at(-1)!;
    expect(revoke.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(new URLSearchParams(revoke.body as string).get('token')).toBe(tokens.refreshToken);
    await expect(adapter.listAdAccounts(refreshed)).rejects.toMatchObject({ kind: 'auth' });
    const failure = await adapter.refresh(refreshed).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AdPlatformError);
    expect(failure).toMatchObject({ kind: 'auth', message: expect.stringContaining('invalid_grant') });
    expect((failure as Error).message).not.toContain(tokens.refreshToken!);
    // A second revocation: Google no longer knows the token.
    expect(await adapter.revoke(refreshed)).toBe(false);
  });

  it('lists the customers the login reaches, a manager account as its client accounts (every page, the manager as login-customer-id), a cancelled one left out, without a developer token', async () => {
    const tokens = await connect();
    const before = google.requests.length;
    expect(await adapter.listAdAccounts(tokens)).toEqual([
      { id: '1111111111', name: 'Shop', currency: 'EUR', timezone: 'Europe/Paris' },
      { id: '2222222222@9000000000', name: 'Client A', currency: 'USD', timezone: 'America/New_York' },
      { id: '3333333333@9000000000', name: 'Client B', currency: 'GBP', timezone: 'Europe/London' },
    ]);
    const calls = google.requests.slice(before);
    expect(calls[0]).toMatchObject({ method: 'GET', path: '/v26/customers:listAccessibleCustomers' });
    for (const call of calls) {
      expect(call.headers.authorization).toBe(`Bearer ${tokens.accessToken}`);
      expect(call.headers['developer-token']).toBeUndefined();
    }
    const customerQueries = calls.filter((c) => /FROM customer LIMIT 1/.test((c.body as { query?: string })?.query ?? ''));
    expect(customerQueries.map((c) => c.path)).toEqual([
      '/v26/customers/1111111111/googleAds:search',
      '/v26/customers/9000000000/googleAds:search',
      '/v26/customers/4444444444/googleAds:search',
    ]);
    expect((customerQueries[0].body as { query: string }).query).toBe(
      'SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.time_zone, customer.manager FROM customer LIMIT 1',
    );
    const clientPages = calls.filter((c) => /FROM customer_client/.test((c.body as { query?: string })?.query ?? ''));
    // Two clients, a page of two: one page; the manager named as login-customer-id.
    expect(clientPages).toHaveLength(1);
    expect(clientPages[0].headers['login-customer-id']).toBe('9000000000');
  });

  it('lists the enabled conversion actions that take uploaded clicks, of a direct customer and of a client through its manager', async () => {
    const tokens = await connect();
    expect(await adapter.listConversionGoals(tokens, '1111111111')).toEqual([{ id: '501', name: 'Offline purchase', type: 'conversion_action' }]);
    expect(await adapter.listConversionGoals(tokens, '2222222222@9000000000')).toEqual([{ id: '601', name: 'Lead import', type: 'conversion_action' }]);
    expect(google.requests.at(-1)!.headers['login-customer-id']).toBe('9000000000');
    // The client is not reachable without its manager: Google's permission error, which a new authorization does not fix.
    await expect(adapter.listConversionGoals(tokens, '2222222222')).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('authorizationError: USER_PERMISSION_DENIED'),
    });
    // Not a customer id: refused before any call.
    const calls = google.requests.length;
    await expect(adapter.listConversionGoals(tokens, "1' OR 1=1")).rejects.toMatchObject({ kind: 'refused' });
    expect(google.requests.length).toBe(calls);
  });

  it('pulls cost_micros per campaign and day of the customer’s time zone, every page, as spend in the account currency', async () => {
    const tokens = await connect();
    // 2026-03-10T00:00Z .. 2026-03-11T00:00Z is 2026-03-09 and 2026-03-10 in New York.
    const window = costWindowOf('2026-03-10T00:00:00.000Z', '2026-03-11T00:00:00.000Z', 'America/New_York');
    const before = google.requests.length;
    const costs = await adapter.pullCosts(tokens, '2222222222@9000000000', window);
    expect(costs).toEqual([
      { campaignId: '71', day: '2026-03-09', spend: 12.34, currency: 'USD' },
      { campaignId: '72', day: '2026-03-09', spend: 0.5, currency: 'USD' },
      { campaignId: '71', day: '2026-03-10', spend: 7, currency: 'USD' },
    ]);
    const pages = google.requests.slice(before);
    expect(pages).toHaveLength(2);
    expect(pages[0].body).toEqual({
      query:
        'SELECT campaign.id, segments.date, metrics.cost_micros, customer.currency_code FROM campaign ' +
        "WHERE segments.date BETWEEN '2026-03-09' AND '2026-03-10' AND metrics.cost_micros > 0",
    });
    expect(pages[1].body).toMatchObject({ pageToken: 'page-2' });
    expect(pages.map((p) => p.headers['login-customer-id'])).toEqual(['9000000000', '9000000000']);
  });

  it('uploads conversions to the conversion action with the gclid, the event id as transaction id, and no user data', async () => {
    const tokens = await connect();
    const outcome = await adapter.uploadConversions(tokens, { adAccountId: '2222222222@9000000000', goalId: '601', eventName: null }, [
      conversion(1),
      conversion(2, { value: null, occurredAt: '2026-03-10T11:30:00+01:00' }),
      conversion(3, { currency: 'EUR' }),
    ]);
    expect(outcome).toMatchObject({ accepted: 3, rejected: [] });
    const sent = google.requests.filter((r) => r.path === '/v1/events:ingest').at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${tokens.accessToken}`);
    expect(sent.headers['developer-token']).toBeUndefined();
    expect(sent.body).toEqual({
      destinations: [
        {
          operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '2222222222' },
          loginAccount: { accountType: 'GOOGLE_ADS', accountId: '9000000000' },
          productDestinationId: '601',
        },
      ],
      events: [
        {
          transactionId: 'hit1:tx1',
          eventTimestamp: '2026-03-10T10:00:00.000Z',
          eventSource: 'WEB',
          adIdentifiers: { gclid: 'Cj0KCQgclid1' },
          conversionValue: 12.5,
        },
        { transactionId: 'hit2:tx2', eventTimestamp: '2026-03-10T10:30:00.000Z', eventSource: 'WEB', adIdentifiers: { gclid: 'Cj0KCQgclid2' } },
        {
          transactionId: 'hit3:tx3',
          eventTimestamp: '2026-03-10T10:00:00.000Z',
          eventSource: 'WEB',
          adIdentifiers: { gclid: 'Cj0KCQgclid3' },
          conversionValue: 12.5,
          currency: 'EUR',
        },
      ],
    });
    expect(outcome.answer).toEqual({ requests: [{ requestId: expect.stringMatching(/^request-/), events: 3 }], rejected: [] });
    // A direct customer has no login account.
    await adapter.uploadConversions(tokens, { adAccountId: '1111111111', goalId: '501', eventName: null }, [conversion(4)]);
    expect((google.requests.at(-1)!.body as { destinations: unknown[] }).destinations).toEqual([
      { operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '1111111111' }, productDestinationId: '501' },
    ]);
  });

  it('takes up to 2,000 events a request and refuses more before sending', async () => {
    const tokens = await connect();
    const goal = { adAccountId: '1111111111', goalId: '501', eventName: null };
    const full = Array.from({ length: 2000 }, (_, i) => conversion(1000 + i));
    expect(await adapter.uploadConversions(tokens, goal, full)).toMatchObject({ accepted: 2000 });
    expect((google.requests.at(-1)!.body as { events: unknown[] }).events).toHaveLength(2000);
    const calls = google.requests.length;
    await expect(adapter.uploadConversions(tokens, goal, [...full, conversion(9999)])).rejects.toMatchObject({ kind: 'refused' });
    expect(google.requests.length).toBe(calls);
  });

  it('rejects the events a fast-failed request names and sends the rest again, each taken once', async () => {
    const tokens = await connect();
    const goal = { adAccountId: '1111111111', goalId: '501', eventName: null };
    const ingestedBefore = google.ingested.length;
    const outcome = await adapter.uploadConversions(tokens, goal, [conversion(21), conversion(22, { clickId: 'not-a-gclid' }), conversion(23)]);
    expect(outcome.accepted).toBe(2);
    expect(outcome.rejected).toEqual([{ eventId: 'hit22:tx22', reason: 'events[1].ad_identifiers.gclid: The click identifier is invalid.' }]);
    expect(google.ingested.slice(ingestedBefore).map((e) => e.event.transactionId)).toEqual(['hit21:tx21', 'hit23:tx23']);
    expect(outcome.answer).toEqual({
      requests: [
        { failed: 400, rejectedEvents: 1 },
        { requestId: expect.any(String), events: 2 },
      ],
      rejected: outcome.rejected,
    });
    // Every event invalid: all rejected, nothing taken.
    const none = await adapter.uploadConversions(tokens, goal, [conversion(24, { clickId: 'not-a-gclid' })]);
    expect(none).toMatchObject({ accepted: 0, rejected: [{ eventId: 'hit24:tx24' }] });
    // No click id or no valid time: rejected without asking Google.
    const calls = google.requests.length;
    const local = await adapter.uploadConversions(tokens, goal, [conversion(26, { clickId: '' }), conversion(27, { occurredAt: 'yesterday' })]);
    expect(local).toMatchObject({ accepted: 0, rejected: [{ eventId: 'hit26:tx26' }, { eventId: 'hit27:tx27' }] });
    expect(google.requests.length).toBe(calls);
    // A wrong destination names no event: the request itself is refused.
    await expect(adapter.uploadConversions(tokens, { ...goal, goalId: '502' }, [conversion(25)])).rejects.toMatchObject({
      kind: 'refused',
      message: expect.stringContaining('INVALID_ARGUMENT'),
    });
  });

  it('maps Google errors: 429 with its retry delay, 5xx, an expired token, and a grant without the Data Manager scope', async () => {
    const tokens = await connect();
    google.failNext(429);
    await expect(adapter.listAdAccounts(tokens)).rejects.toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 1 });
    google.failNext(503);
    await expect(adapter.pullCosts(tokens, '1111111111', { since: '2026-03-01', until: '2026-03-02', timezone: 'Europe/Paris' })).rejects.toMatchObject({
      kind: 'unavailable',
    });
    google.failNext(500);
    await expect(adapter.uploadConversions(tokens, { adAccountId: '1111111111', goalId: '501', eventName: null }, [conversion(31)])).rejects.toMatchObject({
      kind: 'unavailable',
    });
    google.failNext(401);
    const expired = await adapter.listConversionGoals(tokens, '1111111111').catch((error: unknown) => error);
    expect(expired).toMatchObject({ kind: 'auth', message: expect.stringContaining('UNAUTHENTICATED') });
    expect((expired as Error).message).not.toContain(tokens.accessToken);

    // The user granted Google Ads but not the Data Manager scope: uploads fail as auth (a new consent fixes it), reading still works.
    const partial = await connect([ADWORDS]);
    expect(partial.scopes).toEqual([ADWORDS]);
    expect(await adapter.listConversionGoals(partial, '1111111111')).toHaveLength(1);
    await expect(adapter.uploadConversions(partial, { adAccountId: '1111111111', goalId: '501', eventName: null }, [conversion(32)])).rejects.toMatchObject({
      kind: 'auth',
      message: expect.stringContaining('ACCESS_TOKEN_SCOPE_INSUFFICIENT'),
    });
  });
});
