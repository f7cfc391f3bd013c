import { OAuth2Server } from 'oauth2-mock-server';
import { generateAssetId } from '@funnel/contracts';
import { FakeMetaGraph } from '../../../integrations/feature/src/providers/meta/fixtures/meta-graph.fixture';
import { Api, Deployment, distributedDeployment, standaloneDeployment } from './harness';

const REDIRECT = 'https://app.example.com/integrations/callback';

/** Follows the authorization URL as the user's browser would (the mock server authorizes at once) and reads the redirect's code and state. */
async function authorizeAt(authorizationUrl: string): Promise<{ code: string; state: string }> {
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = new URL(answer.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
}

async function connect(api: Api, key?: string): Promise<any> {
  const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'meta', integrationName: 'Meta, main login' }, key });
  expect(started.status).toBe(200);
  const { code, state } = await authorizeAt(started.body.authorizationUrl);
  expect(state).toBe(started.body.state);
  const completed = await api.call('POST', '/integrations/oauth/complete', { body: { state, code }, key });
  expect(completed.status).toBe(200);
  return completed.body.integration;
}

describe.each([
  ['standalone', standaloneDeployment],
  ['distributed', distributedDeployment],
] as const)('/v1/integrations in %s mode', (_mode, deploy) => {
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
  let deployment: Deployment;
  let api: Api;

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
    // Meta's token endpoint answers access_token, token_type and expires_in only (no scope, no refresh or id token).
    oauth.service.on('beforeResponse', (response: { body: Record<string, unknown> }) => {
      for (const field of ['scope', 'refresh_token', 'id_token']) delete response.body[field];
    });
    const apiUrl = await graph.start();
    deployment = await deploy({
      INTEGRATION_REDIRECT_URI: REDIRECT,
      INTEGRATION_META_CLIENT_ID: 'meta-app',
      INTEGRATION_META_CLIENT_SECRET: 'meta-secret',
      INTEGRATION_META_AUTH_URL: `${oauth.issuer.url}/authorize`,
      INTEGRATION_META_TOKEN_URL: `${oauth.issuer.url}/token`,
      INTEGRATION_META_API_URL: apiUrl,
    });
    api = deployment.api;
  });
  afterAll(async () => {
    await deployment?.cleanup();
    await oauth.stop();
    await graph.stop();
  });

  it('lists what each provider can do and needs', async () => {
    const res = await api.call('GET', '/integrations/capabilities');
    expect(res.status).toBe(200);
    expect(res.body.providers).toContainEqual(
      expect.objectContaining({ provider: 'meta', configured: true, costSync: true, conversionUpload: true, pkce: true, refresh: false, revoke: true }),
    );
  });

  it('connects Meta, links an ad account and a goal, renames, loses and regains the authorization keeping its links, and deletes (revoking)', async () => {
    const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'meta' } });
    expect(started.body).toEqual({
      authorizationUrl: expect.any(String),
      state: expect.any(String),
      codeChallengeMethod: 'S256',
      expiresAt: expect.any(String),
    });
    const url = new URL(started.body.authorizationUrl);
    expect(url.searchParams.get('code_challenge')).toEqual(expect.any(String));
    expect(url.searchParams.get('redirect_uri')).toBe(REDIRECT);
    expect(Date.parse(started.body.expiresAt) - Date.now()).toBeLessThanOrEqual(10 * 60 * 1000);

    const integration = await connect(api);
    expect(integration).toEqual({
      idIntegration: expect.stringMatching(/^[0-9A-Za-z]{12}$/),
      provider: 'meta',
      integrationName: 'Meta, main login',
      status: 'active',
      lastError: null,
      expiresAt: expect.any(String),
      scopes: ['ads_read', 'ads_management', 'business_management'],
      createdAt: expect.any(String),
    });
    const id = integration.idIntegration;
    const listed = await api.call('GET', '/integrations');
    expect(listed.body.integrations).toContainEqual(integration);
    // No token in any answer.
    expect(listed.text).not.toMatch(/EAAlonglived|aes-256-gcm/);

    const accounts = await api.call('GET', `/integrations/${id}/adaccounts`);
    expect(accounts.body.adAccounts).toEqual([
      { id: 'act_101', name: 'Main', currency: 'EUR', timezone: 'Europe/Paris', idTrafficSource: null },
      { id: 'act_102', name: 'Second', currency: 'USD', timezone: 'America/New_York', idTrafficSource: null },
    ]);

    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'Facebook' } })).status).toBe(200);
    const linked = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/link`, { body: { idTrafficSource } });
    expect(linked.status).toBe(200);
    expect(linked.body.adAccount).toEqual({ id: 'act_101', name: 'Main', currency: 'EUR', timezone: 'Europe/Paris', idTrafficSource });
    // A traffic source the account does not have, an ad account the login does not reach.
    const missing = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/link`, { body: { idTrafficSource: generateAssetId() } });
    expect([missing.status, missing.body.code]).toEqual([400, 'ASSET.INVALID_REFERENCE']);
    const unknown = await api.call('PUT', `/integrations/${id}/adaccounts/act_999/link`, { body: { idTrafficSource } });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'INTEGRATION.AD_ACCOUNT_NOT_FOUND']);

    const goals = await api.call('GET', `/integrations/${id}/adaccounts/act_101/goals`);
    expect(goals.body.goals).toEqual([{ id: '555', name: 'Shop dataset', type: 'dataset', link: null }]);
    const noEvent = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/goals/555/link`, { body: { idTrafficSource } });
    expect([noEvent.status, noEvent.body.details?.[0]?.field]).toEqual([400, 'eventName']);
    const goal = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/goals/555/link`, {
      body: { idTrafficSource, eventName: 'Purchase', clickIdField: 'fbclid' },
    });
    expect(goal.body.goal).toEqual({
      id: '555',
      name: 'Shop dataset',
      type: 'dataset',
      link: { idTrafficSource, eventName: 'Purchase', clickIdField: 'fbclid' },
    });

    const renamed = await api.call('PUT', `/integrations/${id}`, { body: { integrationName: 'Meta EU' } });
    expect(renamed.body.integration.integrationName).toBe('Meta EU');
    expect((await api.call('GET', `/integrations/${id}`)).body.integration.integrationName).toBe('Meta EU');

    // The provider stops taking the token: the integration needs a reauthorization.
    graph.expireTokens();
    const refused = await api.call('POST', `/integrations/${id}/adaccounts/refresh`);
    expect([refused.status, refused.body.code]).toEqual([409, 'INTEGRATION.NEEDS_REAUTH']);
    const lost = (await api.call('GET', `/integrations/${id}`)).body.integration;
    expect(lost.status).toBe('needs_reauth');
    expect(lost.lastError).toContain('code 190');
    // No further provider call while it needs one.
    const calls = graph.requests.length;
    expect((await api.call('GET', `/integrations/${id}/adaccounts/act_101/goals`)).status).toBe(409);
    expect(graph.requests.length).toBe(calls);

    const again = await api.call('POST', `/integrations/${id}/reauthorize`);
    expect(again.status).toBe(200);
    const redirect = await authorizeAt(again.body.authorizationUrl);
    const reauthorized = await api.call('POST', '/integrations/oauth/complete', { body: redirect });
    expect(reauthorized.body.integration).toMatchObject({ idIntegration: id, integrationName: 'Meta EU', status: 'active', lastError: null });
    expect((await api.call('GET', `/integrations/${id}/adaccounts`)).body.adAccounts[0].idTrafficSource).toBe(idTrafficSource);
    expect((await api.call('GET', `/integrations/${id}/adaccounts/act_101/goals`)).body.goals[0].link).toEqual({
      idTrafficSource,
      eventName: 'Purchase',
      clickIdField: 'fbclid',
    });
    expect((await api.call('GET', '/integrations')).body.integrations.filter((i: any) => i.idIntegration === id)).toHaveLength(1);

    const revokedBefore = graph.revoked.length;
    const deleted = await api.call('DELETE', `/integrations/${id}`);
    expect(deleted.body).toEqual({ idIntegration: id, revoked: true });
    expect(graph.revoked.length).toBe(revokedBefore + 1);
    expect((await api.call('GET', `/integrations/${id}`)).status).toBe(404);
    expect((await api.call('GET', '/integrations')).body.integrations.map((i: any) => i.idIntegration)).not.toContain(id);
  });

  it('takes a state once, from the user and account that started it', async () => {
    const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'meta' } });
    const redirect = await authorizeAt(started.body.authorizationUrl);
    const other = await deployment.newAccount(`integrations-state-${_mode}@example.com`);
    const stolen = await api.call('POST', '/integrations/oauth/complete', { body: redirect, key: other.apiKey });
    expect([stolen.status, stolen.body.code]).toEqual([400, 'INTEGRATION.INVALID_STATE']);
    expect((await api.call('POST', '/integrations/oauth/complete', { body: redirect })).status).toBe(200);
    const twice = await api.call('POST', '/integrations/oauth/complete', { body: redirect });
    expect([twice.status, twice.body.code]).toEqual([400, 'INTEGRATION.INVALID_STATE']);
    const declined = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'meta' } });
    const refused = await api.call('POST', '/integrations/oauth/complete', { body: { state: declined.body.state, error: 'access_denied' } });
    expect([refused.status, refused.body.code]).toEqual([400, 'INTEGRATION.AUTHORIZATION_FAILED']);
    const unknown = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'myspace' } });
    expect([unknown.status, unknown.body.code]).toEqual([400, 'INTEGRATION.UNKNOWN_PROVIDER']);
  });

  it('lets assets:read read and only integrations:manage change; another account sees none of it', async () => {
    const integration = await connect(api);
    const id = integration.idIntegration;
    const reader = await api.call('POST', '/apikeys/generate', { body: { name: 'reader', permissions: ['assets:read'] } });
    const readerKey = reader.body.key;
    expect(typeof readerKey).toBe('string');
    expect((await api.call('GET', `/integrations/${id}`, { key: readerKey })).status).toBe(200);
    expect((await api.call('GET', `/integrations/${id}/adaccounts`, { key: readerKey })).status).toBe(200);
    expect((await api.call('PUT', `/integrations/${id}`, { key: readerKey, body: { integrationName: 'x' } })).status).toBe(403);
    expect((await api.call('DELETE', `/integrations/${id}`, { key: readerKey })).status).toBe(403);
    expect((await api.call('POST', '/integrations/oauth/start', { key: readerKey, body: { provider: 'meta' } })).status).toBe(403);

    const other = await deployment.newAccount(`integrations-other-${_mode}@example.com`);
    expect((await api.call('GET', '/integrations', { key: other.apiKey })).body.integrations).toEqual([]);
    expect((await api.call('GET', `/integrations/${id}`, { key: other.apiKey })).status).toBe(404);
    expect((await api.call('PUT', `/integrations/${id}`, { key: other.apiKey, body: { integrationName: 'mine' } })).status).toBe(404);
    expect((await api.call('DELETE', `/integrations/${id}`, { key: other.apiKey })).status).toBe(404);
    expect((await api.call('GET', `/integrations/${id}`)).body.integration.integrationName).toBe('Meta, main login');
  });
});
