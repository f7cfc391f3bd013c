import { createHash, randomUUID } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { eventually } from '@funnel/testing';
import { FakeMetaGraph } from '../../../integrations/feature/src/providers/meta/fixtures/meta-graph.fixture';
import { FakeTikTokApi } from '../../../integrations/feature/src/providers/tiktok/fixtures/tiktok-api.fixture';
import { FakeGoogleAds } from '../../../integrations/feature/src/providers/google/fixtures/google-ads-api.fixture';
import { FakeMicrosoftAds } from '../../../integrations/feature/src/providers/microsoft/fixtures/microsoft-api.fixture';
import { Api, Deployment, distributedDeployment, standaloneDeployment } from './harness';

const REDIRECT = 'https://app.example.com/integrations/callback';

/** Follows the authorization URL as the user's browser would (the mock server authorizes at once) and reads the redirect's code and state. */
async function authorizeAt(authorizationUrl: string): Promise<{ code: string; state: string }> {
  const answer = await fetch(authorizationUrl, { redirect: 'manual' });
  const location = new URL(answer.headers.get('location')!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  return { code: location.searchParams.get('code')!, state: location.searchParams.get('state')! };
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

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
    // Spend of 2026-03-10 in the ad account's zone (Europe/Paris: 2026-03-09T23:00Z .. 2026-03-10T23:00Z).
    insights: { act_101: [{ campaign_id: '2381', spend: '9.00', account_currency: 'EUR', date_start: '2026-03-10' }] },
  });
  const tiktok = new FakeTikTokApi({
    appId: 'tt-app',
    secret: 'tt-secret',
    advertisers: [{ advertiser_id: '7001', name: 'Shop US', currency: 'USD', timezone: 'Etc/GMT+5', display_timezone: 'America/New_York' }],
    pixels: { '7001': [{ pixel_id: '91', pixel_code: 'CPIXEL1', pixel_name: 'Shop pixel' }] },
    // Spend of 2026-03-10 in New York (EDT: 2026-03-10T04:00Z .. 2026-03-11T04:00Z).
    report: { '7001': [{ campaign_id: '1801', day: '2026-03-10', spend: '6.00' }] },
  });
  const google = new FakeGoogleAds({
    clientId: 'google-app',
    customers: [
      { id: '9000000000', descriptiveName: 'Agency MCC', currencyCode: 'USD', timeZone: 'America/New_York', manager: true, clients: ['2222222222'] },
      { id: '2222222222', descriptiveName: 'Client A', currencyCode: 'USD', timeZone: 'America/New_York' },
    ],
    conversionActions: { '2222222222': [{ id: '601', name: 'Lead import', type: 'UPLOAD_CLICKS', status: 'ENABLED' }] },
    // Spend of 2026-03-10 in New York (2026-03-10T04:00Z .. 2026-03-11T04:00Z).
    costs: { '2222222222': [{ campaignId: '71', date: '2026-03-10', costMicros: '7000000' }] },
  });
  const msOauth = new OAuth2Server();
  const msGrants: string[] = [];
  const microsoft = new FakeMicrosoftAds({
    developerToken: 'ms-dev-token',
    accounts: [{ id: '180002', customerId: '250002', name: 'Shop US', currency: 'USD', timeZone: 'PacificTimeUSCanadaTijuana' }],
    goals: { '180002': [{ id: '4001', name: 'Qualified lead' }] },
    // Spend of 2026-03-10 in Los Angeles (PDT: 2026-03-10T07:00Z .. 2026-03-11T07:00Z).
    spend: { '180002': [{ day: '2026-03-10', campaignId: '7001', spend: '8.40' }] },
  });
  let deployment: Deployment;
  let api: Api;

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
    // Meta's token endpoint answers access_token, token_type and expires_in only (no scope, no refresh or id token).
    oauth.service.on('beforeResponse', (response: { body: Record<string, unknown> }, req: { body?: Record<string, string> }) => {
      if (req.body?.client_id === 'meta-app') for (const field of ['scope', 'refresh_token', 'id_token']) delete response.body[field];
    });
    google.attachTo(oauth.service);
    const googleUrls = await google.start();
    const apiUrl = await graph.start();
    const tiktokUrls = await tiktok.start();
    await msOauth.issuer.keys.generate('RS256');
    await msOauth.start(0, '127.0.0.1');
    msOauth.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => void (token.payload.jti = randomUUID()));
    // Tokens of two minutes (within the refresh margin): each use refreshes first. No id_token without the openid scope.
    msOauth.service.on('beforeResponse', (response: { body: Record<string, unknown> }, req: { body: Record<string, string> }) => {
      msGrants.push(req.body.grant_type);
      response.body.expires_in = 120;
      delete response.body.id_token;
    });
    const ms = await microsoft.start();
    deployment = await deploy({
      INTEGRATION_TIKTOK_CLIENT_ID: 'tt-app',
      INTEGRATION_TIKTOK_CLIENT_SECRET: 'tt-secret',
      INTEGRATION_TIKTOK_AUTH_URL: tiktokUrls.authUrl,
      INTEGRATION_TIKTOK_TOKEN_URL: tiktokUrls.tokenUrl,
      INTEGRATION_TIKTOK_API_URL: tiktokUrls.apiUrl,
      INTEGRATION_REDIRECT_URI: REDIRECT,
      INTEGRATION_MICROSOFT_CLIENT_ID: 'ms-app',
      INTEGRATION_MICROSOFT_CLIENT_SECRET: 'ms-secret',
      INTEGRATION_MICROSOFT_AUTH_URL: `${msOauth.issuer.url}/authorize`,
      INTEGRATION_MICROSOFT_TOKEN_URL: `${msOauth.issuer.url}/token`,
      INTEGRATION_MICROSOFT_API_URL: ms.apiUrl,
      INTEGRATION_MICROSOFT_CUSTOMER_URL: ms.customerUrl,
      INTEGRATION_MICROSOFT_REPORTING_URL: ms.reportingUrl,
      INTEGRATION_MICROSOFT_DEVELOPER_TOKEN: 'ms-dev-token',
      INTEGRATION_META_CLIENT_ID: 'meta-app',
      INTEGRATION_META_CLIENT_SECRET: 'meta-secret',
      INTEGRATION_META_AUTH_URL: `${oauth.issuer.url}/authorize`,
      INTEGRATION_META_TOKEN_URL: `${oauth.issuer.url}/token`,
      INTEGRATION_META_API_URL: apiUrl,
      INTEGRATION_GOOGLE_CLIENT_ID: 'google-app',
      INTEGRATION_GOOGLE_CLIENT_SECRET: 'google-secret',
      INTEGRATION_GOOGLE_AUTH_URL: `${oauth.issuer.url}/authorize`,
      INTEGRATION_GOOGLE_TOKEN_URL: `${oauth.issuer.url}/token`,
      INTEGRATION_GOOGLE_API_URL: googleUrls.apiUrl,
      INTEGRATION_GOOGLE_DATA_MANAGER_URL: googleUrls.dataManagerUrl,
      INTEGRATION_GOOGLE_REVOKE_URL: googleUrls.revokeUrl,
    });
    api = deployment.api;
  });
  afterAll(async () => {
    await deployment?.cleanup();
    await oauth.stop();
    await graph.stop();
    await msOauth.stop();
    await microsoft.stop();
    await tiktok.stop();
    await google.stop();
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

  it('syncs costs on demand: spend per campaign and day lands on the linked traffic source hits of that campaign (a 429 waited out)', async () => {
    const me = await deployment.newAccount(`integrations-cost-${_mode}@example.com`);
    const integration = await connect(api, me.apiKey);
    const id = integration.idIntegration;
    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'Facebook' }, key: me.apiKey })).status).toBe(200);
    const nothingLinked = await api.call('POST', `/integrations/${id}/sync`, {
      key: me.apiKey,
      body: { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' },
    });
    expect([nothingLinked.status, nothingLinked.body.code]).toEqual([400, 'INTEGRATION.SYNC_NOT_POSSIBLE']);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/act_101/link`, { body: { idTrafficSource }, key: me.apiKey })).status).toBe(200);

    const hit = (campaign: string, time: string, over: Partial<Hit> = {}): Hit =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnel: generateAssetId(),
        idFunnelGroup: generateAssetId(),
        idTrafficSource,
        countryCode: 'FR',
        isEntrance: true,
        trackingFields: { campaign },
        time,
        ...over,
      });
    // Three clicks of campaign 2381 that Paris day (one just before its UTC midnight), one of another campaign, one the day after.
    const paid = [hit('2381', '2026-03-10T08:00:00.000Z'), hit('2381', '2026-03-10T12:00:00.000Z'), hit('2381', '2026-03-10T22:30:00.000Z')];
    const others = [hit('777', '2026-03-10T12:00:00.000Z'), hit('2381', '2026-03-10T23:30:00.000Z')];
    const internal = deployment.internal();
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [...paid, ...others] } });

    graph.throttleNext = 1;
    const accepted = await api.call('POST', `/integrations/${id}/sync`, {
      key: me.apiKey,
      body: { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ jobId: expect.stringMatching(/^[0-9A-Za-z]{12}$/) });
    let job: any;
    for (let i = 0; i < 200; i++) {
      job = (await api.call('GET', `/integrations/sync/${accepted.body.jobId}`, { key: me.apiKey })).body.job;
      if (job.status !== 'queued' && job.status !== 'running') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(job).toMatchObject({
      idIntegration: id,
      kind: 'cost',
      trigger: 'request',
      status: 'done',
      parts: [{ adAccountId: 'act_101', rows: 1, error: null }],
    });
    const costJobId = job.parts[0].costJobIds[0];
    for (let i = 0; i < 200; i++) {
      const record = await api.call('GET', `/reporting/jobs/?jobId=${costJobId}`, { key: me.apiKey });
      if (record.status === 200 && record.body.status === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const insights = graph.requests.filter((r) => r.path === '/act_101/insights');
    expect(insights.at(-1)!.query).toMatchObject({
      level: 'campaign',
      time_increment: '1',
      time_range: JSON.stringify({ since: '2026-03-10', until: '2026-03-11' }),
    });
    const stored = await internal.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
      context: { accountId: me.accountId, userId: 'test', permissions: [], correlationId: 'test' },
      body: { hitIds: [...paid, ...others].map((h) => h.hitId) },
    });
    const cost = new Map(stored.hits.map((h) => [h.hitId, h.cost]));
    expect(paid.map((h) => cost.get(h.hitId))).toEqual(['3', '3', '3']);
    expect(others.map((h) => cost.get(h.hitId))).toEqual(['0', '0']);
    // As a report shows it: by campaign, the synced campaign carries the day's 9.00, the other none.
    const report = await api.call('POST', '/reporting/drilldown/', {
      key: me.apiKey,
      body: { timeStart: '2026-03-09T00:00:00Z', timeEnd: '2026-03-12T00:00:00Z', groupings: [{ groupBy: 'campaign' }], metrics: ['Cost'] },
    });
    expect(report.status).toBe(200);
    const costByCampaign = Object.fromEntries(
      report.body.rows.map((row: { cells: { raw: unknown }[] }) => [String(row.cells[0].raw), Number(row.cells[row.cells.length - 1].raw)]),
    );
    expect(costByCampaign).toMatchObject({ '2381': 9, '777': 0 });
    // Another account does not see the job.
    const other = await deployment.newAccount(`integrations-cost-other-${_mode}@example.com`);
    expect((await api.call('GET', `/integrations/sync/${accepted.body.jobId}`, { key: other.apiKey })).status).toBe(404);
  });

  it('connects TikTok with its own auth-code flow, syncs its spend by the advertiser zone and uploads a conversion to its pixel once; deleting revokes the token', async () => {
    const me = await deployment.newAccount(`integrations-tiktok-${_mode}@example.com`);
    const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'tiktok' }, key: me.apiKey });
    expect([started.status, started.body.codeChallengeMethod]).toEqual([200, null]);
    const { code, state } = await authorizeAt(started.body.authorizationUrl);
    const completed = await api.call('POST', '/integrations/oauth/complete', { body: { state, code }, key: me.apiKey });
    expect(completed.body.integration).toMatchObject({ provider: 'tiktok', status: 'active', expiresAt: null });
    const id = completed.body.integration.idIntegration;
    expect(completed.text).not.toContain('act.tiktok');
    const accounts = await api.call('GET', `/integrations/${id}/adaccounts`, { key: me.apiKey });
    expect(accounts.body.adAccounts).toEqual([{ id: '7001', name: 'Shop US', currency: 'USD', timezone: 'America/New_York', idTrafficSource: null }]);
    const goals = await api.call('GET', `/integrations/${id}/adaccounts/7001/goals`, { key: me.apiKey });
    expect(goals.body.goals).toEqual([{ id: 'CPIXEL1', name: 'Shop pixel', type: 'pixel', link: null }]);

    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'TikTok' }, key: me.apiKey })).status).toBe(200);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/7001/link`, { body: { idTrafficSource }, key: me.apiKey })).status).toBe(200);
    const hit = (time: string): Hit =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnel: generateAssetId(),
        idFunnelGroup: generateAssetId(),
        idTrafficSource,
        isEntrance: true,
        trackingFields: { campaign: '1801' },
        time,
      });
    // Two clicks of that New York day (one after UTC midnight), one of the day before there.
    const hits = [hit('2026-03-10T12:00:00.000Z'), hit('2026-03-11T03:30:00.000Z'), hit('2026-03-10T03:00:00.000Z')];
    const internal = deployment.internal();
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits } });
    const accepted = await api.call('POST', `/integrations/${id}/sync`, {
      key: me.apiKey,
      body: { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' },
    });
    expect(accepted.status).toBe(202);
    let job: any;
    for (let i = 0; i < 200 && !['done', 'failed', 'needs_reauth'].includes(job?.status); i++) {
      if (i) await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await api.call('GET', `/integrations/sync/${accepted.body.jobId}`, { key: me.apiKey })).body.job;
    }
    expect(job).toMatchObject({ status: 'done', parts: [{ adAccountId: '7001', rows: 1, error: null }] });
    for (let i = 0; i < 200; i++) {
      const record = await api.call('GET', `/reporting/jobs/?jobId=${job.parts[0].costJobIds[0]}`, { key: me.apiKey });
      if (record.status === 200 && record.body.status === 'done') break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // The New York days the window touches, asked of the daily campaign report.
    expect(tiktok.requests.filter((r) => r.path === '/report/integrated/get/').at(-1)!.query).toMatchObject({
      start_date: '2026-03-09',
      end_date: '2026-03-10',
    });
    const stored = await internal.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
      context: { accountId: me.accountId, userId: 'test', permissions: [], correlationId: 'test' },
      body: { hitIds: hits.map((h) => h.hitId) },
    });
    const cost = new Map(stored.hits.map((h) => [h.hitId, h.cost]));
    expect(hits.map((h) => cost.get(h.hitId))).toEqual(['3', '3', '0']);

    // Conversions out: the pixel linked with its event, the click id in the `external` field; a conversion applied twice goes out once.
    const pixel = await api.call('PUT', `/integrations/${id}/adaccounts/7001/goals/CPIXEL1/link`, {
      body: { idTrafficSource, eventName: 'CompletePayment', clickIdField: 'external' },
      key: me.apiKey,
    });
    expect(pixel.status).toBe(200);
    const clicked = aHit({
      hitId: generateAssetId(),
      visitorId: generateAssetId(),
      accountId: me.accountId,
      idFunnel: generateAssetId(),
      idTrafficSource,
      trackingFields: { campaign: '1801', external: 'E.C.P.ttclid-1' },
      time: new Date(Date.now() - 3_600_000).toISOString(),
    });
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [clicked] } });
    for (let round = 0; round < 2; round++) {
      expect((await api.call('PUT', '/reporting/update/conversions/', { key: me.apiKey, body: { hits: [{ hitId: clicked.hitId, payout: 7 }] } })).status).toBe(
        200,
      );
    }
    const tracked = () => tiktok.events.filter((e) => (e.event.user as { ttclid?: string } | undefined)?.ttclid === 'E.C.P.ttclid-1');
    for (let i = 0; i < 300 && tracked().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(tracked()).toEqual([
      {
        pixelCode: 'CPIXEL1',
        event: expect.objectContaining({
          event: 'CompletePayment',
          event_id: clicked.hitId,
          properties: expect.objectContaining({ value: 7, currency: 'USD' }),
        }),
      },
    ]);

    expect((await api.call('DELETE', `/integrations/${id}`, { key: me.apiKey })).body).toEqual({ idIntegration: id, revoked: true });
    expect(tiktok.revoked).toHaveLength(1);
  });

  it('connects Google Ads, syncs a manager client’s spend of its New York days, uploads a conversion by its gclid once, and revokes on delete', async () => {
    const me = await deployment.newAccount(`integrations-google-${_mode}@example.com`);
    const key = me.apiKey;
    const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'google' }, key });
    expect(new URL(started.body.authorizationUrl).searchParams.get('access_type')).toBe('offline');
    const completed = await api.call('POST', '/integrations/oauth/complete', { body: await authorizeAt(started.body.authorizationUrl), key });
    expect(completed.body.integration).toMatchObject({ provider: 'google', integrationName: 'Google Ads', status: 'active', scopes: expect.any(Array) });
    const id = completed.body.integration.idIntegration;
    const account = '2222222222@9000000000';
    expect((await api.call('GET', `/integrations/${id}/adaccounts`, { key })).body.adAccounts).toEqual([
      { id: account, name: 'Client A', currency: 'USD', timezone: 'America/New_York', idTrafficSource: null },
    ]);
    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'Google' }, key })).status).toBe(200);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/${account}/link`, { body: { idTrafficSource }, key })).status).toBe(200);
    const goal = await api.call('PUT', `/integrations/${id}/adaccounts/${account}/goals/601/link`, {
      body: { idTrafficSource, clickIdField: 'external' },
      key,
    });
    expect(goal.body.goal.link).toEqual({ idTrafficSource, eventName: null, clickIdField: 'external' });

    // The New York day 2026-03-10 ends at 04:00Z on the 11th: both clicks are in it.
    const base = { accountId: me.accountId, idFunnel: generateAssetId(), idFunnelGroup: generateAssetId(), idTrafficSource, isEntrance: true };
    const clicks = [
      ['2026-03-10T12:00:00.000Z', 'Cj0gclidA'],
      ['2026-03-11T03:00:00.000Z', 'Cj0gclidB'],
    ].map(([time, gclid]) =>
      aHit({ ...base, hitId: generateAssetId(), visitorId: generateAssetId(), trackingFields: { campaign: '71', external: gclid }, time }),
    );
    const internal = deployment.internal();
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: clicks } });
    const sync = await api.call('POST', `/integrations/${id}/sync`, {
      key,
      body: { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' },
    });
    expect(sync.status).toBe(202);
    const costOf = async () => {
      const stored = await internal.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
        context: { accountId: me.accountId, userId: 'test', permissions: [], correlationId: 'test' },
        body: { hitIds: clicks.map((h) => h.hitId) },
      });
      return clicks.map((c) => stored.hits.find((h) => h.hitId === c.hitId)?.cost);
    };
    for (let i = 0; i < 300 && (await costOf()).join() !== '3.5,3.5'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await costOf()).toEqual(['3.5', '3.5']);

    expect((await api.call('PUT', '/reporting/update/conversions/', { key, body: { hits: [{ hitId: clicks[0].hitId, payout: 5 }] } })).status).toBe(200);
    const uploaded = () => google.ingested.filter((e) => e.event.adIdentifiers?.gclid === 'Cj0gclidA');
    for (let i = 0; i < 300 && uploaded().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(uploaded()).toEqual([
      {
        destination: {
          operatingAccount: { accountType: 'GOOGLE_ADS', accountId: '2222222222' },
          loginAccount: { accountType: 'GOOGLE_ADS', accountId: '9000000000' },
          productDestinationId: '601',
        },
        event: expect.objectContaining({ transactionId: expect.stringContaining(clicks[0].hitId), conversionValue: 5, eventSource: 'WEB' }),
      },
    ]);

    const revoked = google.revoked.length;
    expect((await api.call('DELETE', `/integrations/${id}`, { key })).body).toEqual({ idIntegration: id, revoked: true });
    expect(google.revoked.length).toBe(revoked + 1);
  });

  it('uploads the conversions reporting applies (an update, an incoming postback) to the linked dataset once each, in batches of 1,000, none older than 7 days', async () => {
    const me = await deployment.newAccount(`integrations-upload-${_mode}@example.com`);
    const key = me.apiKey;
    const id = (await connect(api, key)).idIntegration;
    const idTrafficSource = generateAssetId();
    const otherSource = generateAssetId();
    for (const [source, name] of [
      [idTrafficSource, 'Facebook'],
      [otherSource, 'Push'],
    ]) {
      const saved = await api.call('POST', '/trafficsource/save/', {
        key,
        body: { idTrafficSource: source, trafficSourceName: name, trackingFieldSlots: { c1: { name: 'fbclid', value: '{fbclid}' } } },
      });
      expect(saved.status).toBe(200);
    }
    const linked = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/goals/555/link`, {
      key,
      body: { idTrafficSource, eventName: 'Purchase', clickIdField: 'fbclid' },
    });
    expect(linked.status).toBe(200);

    const clickedAt = new Date(Date.now() - 3600_000).toISOString();
    const hit = (over: Partial<Hit> = {}): Hit =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnel: generateAssetId(),
        idFunnelGroup: generateAssetId(),
        idTrafficSource,
        ip: '203.0.113.9',
        time: clickedAt,
        ...over,
      });
    // 1,001 clicks with an fbclid (two requests: 1,000 and 1), one of another traffic source, one without a click id, one for the postback.
    const clicks = Array.from({ length: 1001 }, (_, i) => hit({ trackingFields: { c1: `IwAR${i}` } }));
    const elsewhere = hit({ idTrafficSource: otherSource, trackingFields: { c1: 'IwARother' } });
    const noClickId = hit();
    const posted = hit({ trackingFields: { c1: 'IwARposted' } });
    const internal = deployment.internal();
    const all = [...clicks, elsewhere, noClickId, posted];
    for (let i = 0; i < all.length; i += 250) {
      await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: all.slice(i, i + 250) } });
    }
    const events = (ids: string[]) => graph.events.filter((e) => ids.some((hitId) => e.event.event_id.startsWith(`${hitId}:`)));
    const applied = async (body: unknown) => {
      const res = await api.call('PUT', '/reporting/update/conversions/', { key, body });
      expect(res.status).toBe(200);
      const jobId = res.body.jobIds[0];
      return eventually(async () => {
        const record = await api.call('GET', `/reporting/jobs/?jobId=${jobId}`, { key });
        if (record.body.status !== 'done') throw new Error(`job ${jobId} is ${record.body.status}`);
        return record.body;
      }, 30_000);
    };

    // The second request fails once (a 5xx): the job is retried, and the first request's 1,000 are not sent again.
    graph.eventFailures = { skip: 1, fail: 1 };
    const now = Date.now();
    const conversionTime = new Date(now - 600_000).toISOString();
    const rows = [
      ...clicks.map((h, i) => ({ hitId: h.hitId, payout: '2.5', transactionId: `T${i}`, time: conversionTime })),
      { hitId: elsewhere.hitId, payout: '1', transactionId: 'T', time: conversionTime },
      { hitId: noClickId.hitId, payout: '1', transactionId: 'T', time: conversionTime },
      // Eight days ago: older than the Conversions API takes.
      { hitId: clicks[0].hitId, payout: '1', transactionId: 'OLD', time: new Date(now - 8 * 86_400_000).toISOString() },
    ];
    expect((await applied({ hits: rows })).counts).toMatchObject({ applied: 1004 });
    const sent = await eventually(async () => {
      const got = events(clicks.map((h) => h.hitId));
      if (got.length < 1001) throw new Error(`${got.length} events so far`);
      return got;
    }, 60_000);
    const posts = graph.requests.filter((r) => r.method === 'POST' && r.path === '/555/events');
    const sizes = posts.map((r) => (r.body as { data: unknown[] }).data.length);
    // 1,000, then 1 refused with a 500, then that 1 again.
    expect(sizes.slice(-3)).toEqual([1000, 1, 1]);
    expect(posts.at(-1)!.authorization).toMatch(/^Bearer EAAlonglived/);
    const first = sent.find((e) => e.event.event_id === `${clicks[0].hitId}:T0`)!;
    expect(first).toEqual({
      dataset: '555',
      event: {
        event_name: 'Purchase',
        event_time: Math.floor(Date.parse(conversionTime) / 1000),
        event_id: `${clicks[0].hitId}:T0`,
        action_source: 'website',
        user_data: {
          fbc: `fb.1.${Date.parse(clickedAt)}.IwAR0`,
          client_ip_address: '203.0.113.9',
          external_id: [sha256(clicks[0].visitorId.trim().toLowerCase())],
        },
        custom_data: { value: 2.5, currency: 'EUR' },
      },
    });

    // The same conversions applied again (a noop), and one replaced by an incoming postback: nothing sent again.
    expect((await applied({ hits: rows.slice(0, 5) })).counts).toMatchObject({ applied: 0, noop: 5 });
    const pb = (query: string) => fetch(`${deployment.edgeUrl()}/a/${me.accountId}/pb/?${query}`);
    expect((await pb(`hit=${clicks[1].hitId}&tx=T1&rev=3`)).status).toBe(200);
    // A new conversion by an incoming postback goes out.
    expect((await pb(`hit=${posted.hitId}&tx=P1&rev=4`)).status).toBe(200);
    const postedEvent = await eventually(async () => {
      const [got] = events([posted.hitId]);
      if (!got) throw new Error('the postback conversion is not sent yet');
      return got;
    }, 30_000);
    expect(postedEvent.event).toMatchObject({ event_id: `${posted.hitId}:P1`, user_data: { fbc: `fb.1.${Date.parse(clickedAt)}.IwARposted` } });
    expect(postedEvent.event.custom_data).toEqual({ value: 4, currency: 'EUR' });
    // The replaced conversion's upload job ran by now (queued before the postback's) and sent nothing.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const perEvent = new Map<string, number>();
    for (const e of events(all.map((h) => h.hitId))) perEvent.set(e.event.event_id, (perEvent.get(e.event.event_id) ?? 0) + 1);
    expect(perEvent.size).toBe(1002);
    expect([...perEvent.values()].every((count) => count === 1)).toBe(true);
    expect(perEvent.has(`${clicks[0].hitId}:OLD`)).toBe(false);
    expect(events([elsewhere.hitId, noClickId.hitId])).toEqual([]);
  });

  it('stops at an expired token (needs_reauth, no further provider call) and syncs again once reauthorized', async () => {
    const me = await deployment.newAccount(`integrations-reauth-${_mode}@example.com`);
    const key = me.apiKey;
    const id = (await connect(api, key)).idIntegration;
    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { key, body: { idTrafficSource, trafficSourceName: 'Facebook' } })).status).toBe(200);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/act_101/link`, { key, body: { idTrafficSource } })).status).toBe(200);
    const window = { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' };
    const sync = async () => {
      const accepted = await api.call('POST', `/integrations/${id}/sync`, { key, body: window });
      expect(accepted.status).toBe(202);
      return eventually(async () => {
        const job = (await api.call('GET', `/integrations/sync/${accepted.body.jobId}`, { key })).body.job;
        if (job.status === 'queued' || job.status === 'running') throw new Error(`job ${job.status}`);
        return job;
      }, 30_000);
    };

    graph.expireTokens();
    const refused = await sync();
    expect(refused).toMatchObject({ status: 'needs_reauth', error: expect.stringContaining('code 190') });
    expect((await api.call('GET', `/integrations/${id}`, { key })).body.integration).toMatchObject({ status: 'needs_reauth' });
    const calls = graph.requests.length;
    expect(await sync()).toMatchObject({ status: 'needs_reauth' });
    expect(graph.requests.length).toBe(calls);

    const again = await api.call('POST', `/integrations/${id}/reauthorize`, { key });
    const redirect = await authorizeAt(again.body.authorizationUrl);
    expect((await api.call('POST', '/integrations/oauth/complete', { key, body: redirect })).body.integration.status).toBe('active');
    expect(await sync()).toMatchObject({ status: 'done', parts: [{ adAccountId: 'act_101', rows: 1, error: null }] });
  });

  it("connects Microsoft Advertising, refreshes its token before it expires, syncs the spend of a day of the ad account's zone and uploads a conversion to its offline goal once", async () => {
    const me = await deployment.newAccount(`integrations-ms-${_mode}@example.com`);
    const key = me.apiKey;
    const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'microsoft', integrationName: 'Microsoft Ads' }, key });
    const completed = await api.call('POST', '/integrations/oauth/complete', { body: await authorizeAt(started.body.authorizationUrl), key });
    expect(completed.body.integration).toMatchObject({
      provider: 'microsoft',
      status: 'active',
      scopes: ['https://ads.microsoft.com/msads.manage', 'offline_access'],
    });
    const id = completed.body.integration.idIntegration;
    const account = { id: '250002-180002', name: 'Shop US', currency: 'USD', timezone: 'America/Los_Angeles', idTrafficSource: null };
    expect((await api.call('GET', `/integrations/${id}/adaccounts`, { key })).body.adAccounts).toEqual([account]);
    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'Bing' }, key })).status).toBe(200);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/250002-180002/link`, { body: { idTrafficSource }, key })).status).toBe(200);
    const goals = await api.call('GET', `/integrations/${id}/adaccounts/250002-180002/goals`, { key });
    expect(goals.body.goals).toEqual([{ id: '4001', name: 'Qualified lead', type: 'offline_goal', link: null }]);
    expect(msGrants).toContain('refresh_token');

    const hit = (time: string) =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnel: generateAssetId(),
        idTrafficSource,
        trackingFields: { campaign: '7001' },
        time,
      });
    // Two clicks of that Los Angeles day (one after its UTC midnight), one of the day before.
    const paid = [hit('2026-03-10T08:00:00.000Z'), hit('2026-03-11T06:30:00.000Z')];
    const before = hit('2026-03-10T06:30:00.000Z');
    const internal = deployment.internal();
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [...paid, before] } });
    const sync = await api.call('POST', `/integrations/${id}/sync`, {
      key,
      body: { kind: 'cost', timeStart: '2026-03-10T07:00:00Z', timeEnd: '2026-03-11T07:00:00Z' },
    });
    expect(sync.status).toBe(202);
    let job: any;
    for (let i = 0; i < 200 && !['done', 'failed', 'needs_reauth'].includes(job?.status); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await api.call('GET', `/integrations/sync/${sync.body.jobId}`, { key })).body.job;
    }
    expect(job).toMatchObject({ status: 'done', parts: [{ adAccountId: '250002-180002', rows: 1, error: null }] });
    const submit = microsoft.requests.filter((r) => r.path.endsWith('/GenerateReport/Submit')).at(-1)!;
    expect(submit).toMatchObject({ developerToken: 'ms-dev-token', customerId: '250002', customerAccountId: '180002' });
    expect((submit.body as any).ReportRequest.Time).toEqual({
      CustomDateRangeStart: { Year: 2026, Month: 3, Day: 10 },
      CustomDateRangeEnd: { Year: 2026, Month: 3, Day: 10 },
    });
    let costs: (string | undefined)[] = [];
    for (let i = 0; i < 200 && costs.join() !== '4.2,4.2,0'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const stored = await internal.request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
        context: { accountId: me.accountId, userId: 'test', permissions: [], correlationId: 'test' },
        body: { hitIds: [...paid, before].map((h) => h.hitId) },
      });
      costs = [...paid, before].map((h) => stored.hits.find((s) => s.hitId === h.hitId)?.cost);
    }
    expect(costs).toEqual(['4.2', '4.2', '0']);

    // Conversions out: the offline goal linked, the click id (an msclkid: 32 hex digits) in the `external` field; a conversion applied twice goes out once.
    const goal = await api.call('PUT', `/integrations/${id}/adaccounts/250002-180002/goals/4001/link`, {
      body: { idTrafficSource, clickIdField: 'external' },
      key,
    });
    expect(goal.status).toBe(200);
    const clicked = aHit({
      ...hit(new Date(Date.now() - 3_600_000).toISOString()),
      trackingFields: { campaign: '7001', external: 'e7a1b2c3d4e5f60718293a4b5c6d7e8f' },
    });
    await internal.request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [clicked] } });
    for (let round = 0; round < 2; round++) {
      expect((await api.call('PUT', '/reporting/update/conversions/', { key, body: { hits: [{ hitId: clicked.hitId, payout: 7 }] } })).status).toBe(200);
    }
    const applies = () => microsoft.requests.filter((r) => r.path.endsWith('/OfflineConversions/Apply'));
    for (let i = 0; i < 300 && applies().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(applies()).toHaveLength(1);
    expect(microsoft.conversions.filter((c) => c.MicrosoftClickId === 'e7a1b2c3d4e5f60718293a4b5c6d7e8f')).toEqual([
      expect.objectContaining({ accountId: '180002', ConversionName: 'Qualified lead', ConversionValue: 7, ConversionCurrencyCode: 'USD' }),
    ]);
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
