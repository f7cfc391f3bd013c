import { createHash } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { AdPlatformError } from '@funnel/integrations-domain';
import { newPkcePair } from '../../oauth/oauth-client';
import { FakeMetaGraph } from './fixtures/meta-graph.fixture';
import { MetaAdPlatform } from './meta-ad-platform';

const REDIRECT = 'https://app.example.com/integrations/callback';

describe('Meta adapter against oauth2-mock-server and a local Graph API', () => {
  const oauth = new OAuth2Server();
  const graph = new FakeMetaGraph({
    clientId: 'meta-app',
    clientSecret: 'meta-secret',
    adAccounts: [
      { id: 'act_101', name: 'Main', currency: 'EUR', timezone_name: 'Europe/Paris' },
      { id: 'act_102', name: 'Second', currency: 'USD', timezone_name: 'America/New_York' },
    ],
    datasets: { act_101: [{ id: '555', name: 'Shop dataset' }] },
  });
  let meta: MetaAdPlatform;
  const tokenRequests: URLSearchParams[] = [];

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
    oauth.service.on('beforeResponse', (response: { body: unknown }, req: { body: Record<string, string> }) => {
      if (req.body?.grant_type) tokenRequests.push(new URLSearchParams(req.body));
    });
    const apiUrl = await graph.start();
    meta = new MetaAdPlatform({
      clientId: 'meta-app',
      clientSecret: 'meta-secret',
      authUrl: `${oauth.issuer.url}/authorize`,
      tokenUrl: `${oauth.issuer.url}/token`,
      apiUrl,
      timeoutMs: 5000,
      extra: {},
    });
  });
  afterAll(async () => {
    await oauth.stop();
    await graph.stop();
  });

  async function authorize(): Promise<{ code: string; verifier: string }> {
    const { verifier, challenge } = await newPkcePair();
    const url = meta.authorizationUrl({ state: 'state-1', redirectUri: REDIRECT, codeChallenge: challenge });
    expect(url.searchParams.get('client_id')).toBe('meta-app');
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(url.searchParams.get('scope')).toBe('ads_read,ads_management,business_management');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toBe(challenge);
    const answer = await fetch(url, { redirect: 'manual' });
    const location = new URL(answer.headers.get('location')!);
    expect(location.searchParams.get('state')).toBe('state-1');
    return { code: location.searchParams.get('code')!, verifier };
  }

  it('exchanges the code (client secret and PKCE verifier sent), then the short-lived token for a long-lived one', async () => {
    const { code, verifier } = await authorize();
    const tokens = await meta.exchangeCode({ code, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
    const sent = tokenRequests.at(-1)!;
    expect(sent.get('grant_type')).toBe('authorization_code');
    expect(sent.get('client_id')).toBe('meta-app');
    expect(sent.get('client_secret')).toBe('meta-secret');
    expect(sent.get('code_verifier')).toBe(verifier);
    expect(sent.get('redirect_uri')).toBe(REDIRECT);
    expect(tokens.accessToken).toMatch(/^EAAlonglived/);
    expect(tokens.refreshToken).toBeNull();
    // About 60 days.
    expect(Date.parse(tokens.expiresAt!) - Date.now()).toBeGreaterThan(59 * 24 * 3600 * 1000);
    const exchange = graph.requests.find((r) => r.path === '/oauth/access_token')!;
    expect(exchange.query).toMatchObject({ grant_type: 'fb_exchange_token', client_id: 'meta-app', client_secret: 'meta-secret' });

    // Every page of /me/adaccounts, with the documented fields, the token as a Bearer header.
    expect(await meta.listAdAccounts(tokens)).toEqual([
      { id: 'act_101', name: 'Main', currency: 'EUR', timezone: 'Europe/Paris' },
      { id: 'act_102', name: 'Second', currency: 'USD', timezone: 'America/New_York' },
    ]);
    const listed = graph.requests.filter((r) => r.path === '/me/adaccounts');
    expect(listed[0].query.fields).toBe('id,name,currency,timezone_name');
    expect(listed.map((r) => r.authorization)).toEqual([`Bearer ${tokens.accessToken}`, `Bearer ${tokens.accessToken}`]);

    expect(await meta.listConversionGoals(tokens, 'act_101')).toEqual([{ id: '555', name: 'Shop dataset', type: 'dataset' }]);

    // Revocation removes the app's permissions; the token is refused from then on, as an auth failure.
    expect(await meta.revoke(tokens)).toBe(true);
    expect(graph.revoked).toEqual([tokens.accessToken]);
    await expect(meta.listAdAccounts(tokens)).rejects.toMatchObject({ kind: 'auth' });
  });

  it('sends conversions to the dataset with fbc built from the click id and its click time, the IP unhashed, the external id hashed, and the event id for deduplication', async () => {
    const { code, verifier } = await authorize();
    const tokens = await meta.exchangeCode({ code, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
    // Within the 7 days the Conversions API takes (the local Graph API refuses older events, as Meta does).
    const clickedAt = Math.floor(Date.now() / 1000) * 1000 - 2 * 3600_000;
    const occurredAt = clickedAt + 3600_000;
    const outcome = await meta.uploadConversions(tokens, { adAccountId: 'act_101', goalId: '555', eventName: 'Purchase' }, [
      {
        eventId: 'hit1:tx1',
        clickId: 'IwAR0abc',
        clickedAt: new Date(clickedAt).toISOString(),
        occurredAt: new Date(occurredAt).toISOString(),
        clientIp: '203.0.113.7',
        externalId: ' Visitor1 ',
        value: 12.5,
        currency: 'EUR',
      },
    ]);
    expect(outcome.accepted).toBe(1);
    expect(graph.events).toHaveLength(1);
    const sent = graph.requests.find((r) => r.path === '/555/events')!;
    expect(sent.body).toEqual({
      data: [
        {
          event_name: 'Purchase',
          event_time: occurredAt / 1000,
          event_id: 'hit1:tx1',
          action_source: 'website',
          user_data: {
            fbc: `fb.1.${clickedAt}.IwAR0abc`,
            client_ip_address: '203.0.113.7',
            // SHA-256 of "visitor1" (trimmed, lower case), hex.
            external_id: [createHash('sha256').update('visitor1').digest('hex')],
          },
          custom_data: { value: 12.5, currency: 'EUR' },
        },
      ],
    });
  });

  it('answers an expired token as an auth failure (Graph code 190, the token not in the message); Meta tokens cannot be refreshed', async () => {
    const { code, verifier } = await authorize();
    const tokens = await meta.exchangeCode({ code, state: 'state-1', redirectUri: REDIRECT, codeVerifier: verifier });
    graph.expireTokens();
    const failure = await meta.listAdAccounts(tokens).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AdPlatformError);
    expect(failure).toMatchObject({ kind: 'auth' });
    expect((failure as Error).message).toContain('code 190');
    expect((failure as Error).message).not.toContain(tokens.accessToken);
    await expect(meta.refresh()).rejects.toMatchObject({ kind: 'auth' });
  });
});
