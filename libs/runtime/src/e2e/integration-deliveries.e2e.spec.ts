import { OAuth2Server } from 'oauth2-mock-server';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { aHit, type Hit } from '@funnel/reporting-domain';
import { FakeMetaGraph } from '../../../integrations/feature/src/providers/meta/fixtures/meta-graph.fixture';
import { Api, Deployment, distributedDeployment, standaloneDeployment } from './harness';

const REDIRECT = 'https://app.example.com/integrations/callback';
const HOUR = 3600_000;

async function eventually<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function connect(api: Api, key: string): Promise<string> {
  const started = await api.call('POST', '/integrations/oauth/start', { body: { provider: 'meta' }, key });
  const answer = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
  const location = new URL(answer.headers.get('location')!);
  const completed = await api.call('POST', '/integrations/oauth/complete', {
    body: { state: location.searchParams.get('state'), code: location.searchParams.get('code') },
    key,
  });
  expect(completed.status).toBe(200);
  return completed.body.integration.idIntegration;
}

describe.each([
  ['standalone', standaloneDeployment],
  ['distributed', distributedDeployment],
] as const)('the integration deliveries log and on-demand conversion syncs in %s mode', (mode, deploy) => {
  const oauth = new OAuth2Server();
  const graph = new FakeMetaGraph({
    clientId: 'meta-app',
    clientSecret: 'meta-secret',
    adAccounts: [{ id: 'act_101', name: 'Main', currency: 'EUR', timezone_name: 'Europe/Paris' }],
    datasets: { act_101: [{ id: '555', name: 'Shop dataset' }] },
    insights: {
      act_101: [
        { campaign_id: '2381', spend: '9.00', account_currency: 'EUR', date_start: '2026-03-10' },
        { campaign_id: '2382', spend: '0.50', account_currency: 'EUR', date_start: '2026-03-10' },
      ],
    },
  });
  let deployment: Deployment;
  let api: Api;

  beforeAll(async () => {
    await oauth.issuer.keys.generate('RS256');
    await oauth.start(0, '127.0.0.1');
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

  /** The event ids the fake Conversions API received at dataset 555, per request, from request `from` on. */
  const eventsSent = (from: number) =>
    graph.requests
      .slice(from)
      .filter((r) => r.method === 'POST' && r.path === '/555/events')
      .map((r) => (r.body as { data: { event_id: string }[] }).data.map((event) => event.event_id).sort());

  it('logs each cost row a sync pulls and each conversion sent, per job, and sends the conversions of a window again on demand under the same event ids', async () => {
    const me = await deployment.newAccount(`deliveries-${mode}@example.com`);
    const key = me.apiKey;
    const id = await connect(api, key);
    const idTrafficSource = generateAssetId();
    expect((await api.call('POST', '/trafficsource/save/', { body: { idTrafficSource, trafficSourceName: 'Facebook' }, key })).status).toBe(200);
    // Nothing linked to a goal yet: no conversions to send.
    const now = Date.now();
    const window = { timeStart: new Date(now - 24 * HOUR).toISOString(), timeEnd: new Date(now + HOUR).toISOString() };
    const unlinked = await api.call('POST', `/integrations/${id}/sync`, { key, body: { kind: 'conversions', ...window } });
    expect([unlinked.status, unlinked.body.code]).toEqual([400, 'INTEGRATION.SYNC_NOT_POSSIBLE']);
    expect((await api.call('PUT', `/integrations/${id}/adaccounts/act_101/link`, { body: { idTrafficSource }, key })).status).toBe(200);
    const goal = await api.call('PUT', `/integrations/${id}/adaccounts/act_101/goals/555/link`, {
      body: { idTrafficSource, eventName: 'Purchase', clickIdField: 'external' },
      key,
    });
    expect(goal.status).toBe(200);
    // Meta takes conversions at most 7 days old: a window wholly older is refused.
    const old = { timeStart: new Date(now - 30 * 24 * HOUR).toISOString(), timeEnd: new Date(now - 20 * 24 * HOUR).toISOString() };
    const tooOld = await api.call('POST', `/integrations/${id}/sync`, { key, body: { kind: 'conversions', ...old } });
    expect([tooOld.status, tooOld.body.code]).toEqual([400, 'INTEGRATION.SYNC_NOT_POSSIBLE']);

    // Cost: one row per campaign and day pulled, each applied into the day's reporting cost job.
    const cost = await api.call('POST', `/integrations/${id}/sync`, {
      key,
      body: { kind: 'cost', timeStart: '2026-03-10T00:00:00Z', timeEnd: '2026-03-11T00:00:00Z' },
    });
    expect(cost.status).toBe(202);
    const costJob = await eventually(async () => {
      const job = (await api.call('GET', `/integrations/sync/${cost.body.jobId}`, { key })).body.job;
      return job.status === 'done' ? job : undefined;
    }, 'the cost sync');
    const logWindow = { timeStart: new Date(now - HOUR).toISOString(), timeEnd: new Date(now + 2 * HOUR).toISOString() };
    const costLog = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, jobIds: [cost.body.jobId] } });
    expect(costLog.status).toBe(200);
    expect(costLog.body.rowsTotal).toBe(2);
    expect(costLog.body.rows.map((r: any) => r.cost.campaignId).sort()).toEqual(['2381', '2382']);
    expect(costLog.body.rows.find((r: any) => r.cost.campaignId === '2381')).toEqual({
      time: expect.any(String),
      idIntegration: id,
      provider: 'meta',
      jobId: cost.body.jobId,
      attempt: 1,
      kind: 'cost',
      adAccountId: 'act_101',
      goalId: '',
      reportingJobId: costJob.parts[0].costJobIds[0],
      cost: { campaignId: '2381', day: '2026-03-10', spend: '9', currency: 'EUR' },
      conversion: null,
      status: 'applied',
      answer: null,
    });

    // Conversions applied by reporting go out at once, each logged as the provider accepted it.
    const hit = (external: string): Hit =>
      aHit({
        hitId: generateAssetId(),
        visitorId: generateAssetId(),
        accountId: me.accountId,
        idFunnel: generateAssetId(),
        idFunnelGroup: generateAssetId(),
        idTrafficSource,
        trackingFields: { campaign: '2381', external },
        time: new Date(now - 3 * HOUR).toISOString(),
      });
    const [first, second] = [hit('fbclid-A'), hit('fbclid-B')];
    await deployment.internal().request(ReportingSubjects.hitsIngest, { context: undefined as never, body: { hits: [first, second] } });
    const sentBefore = graph.requests.length;
    const converted = new Date(now - HOUR).toISOString();
    const update = await api.call('PUT', '/reporting/update/conversions/', {
      key,
      body: {
        hits: [
          { hitId: first.hitId, payout: '12.5', transactionId: 'tx-1', time: converted },
          { hitId: second.hitId, payout: '3', time: converted },
        ],
      },
    });
    expect(update.status).toBe(200);
    const eventIds = [`${first.hitId}:tx-1`, second.hitId].sort();
    await eventually(async () => (eventsSent(sentBefore).length ? true : undefined), 'the upload');
    expect(eventsSent(sentBefore)).toEqual([eventIds]);
    const uploaded = await eventually(async () => {
      const log = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, kinds: ['conversions'] } });
      return log.body.rowsTotal === 2 ? log.body : undefined;
    }, 'the upload log');
    expect(uploaded.rows.map((r: any) => r.conversion.eventId).sort()).toEqual(eventIds);
    expect(uploaded.rows.find((r: any) => r.conversion.hitId === first.hitId)).toEqual({
      time: expect.any(String),
      idIntegration: id,
      provider: 'meta',
      jobId: expect.stringMatching(/^[0-9A-Za-z]{12}$/),
      attempt: 1,
      kind: 'conversions',
      adAccountId: 'act_101',
      goalId: '555',
      reportingJobId: update.body.jobIds[0],
      cost: null,
      conversion: { eventId: `${first.hitId}:tx-1`, hitId: first.hitId, transactionId: 'tx-1', value: '12.5' },
      status: 'accepted',
      answer: expect.stringContaining('"events_received":2'),
    });
    // The log's job is the upload's sync job (its deliveries are logged before the job records its part and ends).
    const uploadJob = await eventually(async () => {
      const job = (await api.call('GET', `/integrations/sync/${uploaded.rows[0].jobId}`, { key })).body.job;
      return job.status === 'running' ? undefined : job;
    }, 'the upload job');
    expect(uploadJob).toMatchObject({
      idIntegration: id,
      kind: 'conversions',
      trigger: 'conversions',
      status: 'done',
      parts: [{ adAccountId: 'act_101', rows: 2 }],
    });

    // On demand: the window's conversions are sent again, under the same event ids (Meta keeps each once).
    const again = graph.requests.length;
    const resync = await api.call('POST', `/integrations/${id}/sync`, { key, body: { kind: 'conversions', ...window } });
    expect(resync.status).toBe(202);
    const resyncJob = await eventually(async () => {
      const job = (await api.call('GET', `/integrations/sync/${resync.body.jobId}`, { key })).body.job;
      return job.status === 'done' ? job : undefined;
    }, 'the conversion sync');
    expect(resyncJob).toMatchObject({
      jobId: resync.body.jobId,
      idIntegration: id,
      kind: 'conversions',
      trigger: 'request',
      timeStart: window.timeStart,
      timeEnd: window.timeEnd,
      error: null,
      parts: [{ adAccountId: 'act_101', costJobIds: [], rows: 2, rejected: 0, error: null }],
    });
    expect(eventsSent(again)).toEqual([eventIds]);
    const resent = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, jobIds: [resync.body.jobId] } });
    expect(resent.body.rows.map((r: any) => [r.conversion.eventId, r.status, r.reportingJobId])).toEqual(
      expect.arrayContaining(eventIds.map((eventId) => [eventId, 'accepted', ''])),
    );
    expect(resent.body.rowsTotal).toBe(2);

    // The token expires: the sync stops at needs_reauth, its batch logged failed with Meta's answer (never the token).
    graph.expireTokens();
    const refused = await api.call('POST', `/integrations/${id}/sync`, { key, body: { kind: 'conversions', ...window } });
    expect(refused.status).toBe(202);
    const stopped = await eventually(async () => {
      const job = (await api.call('GET', `/integrations/sync/${refused.body.jobId}`, { key })).body.job;
      return job.status === 'needs_reauth' ? job : undefined;
    }, 'the refused sync');
    expect(stopped.error).toContain('code 190');
    const failed = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, statuses: ['failed'] } });
    expect(failed.body.rowsTotal).toBe(2);
    expect(failed.body.rows.every((r: any) => r.jobId === refused.body.jobId && r.answer.includes('code 190'))).toBe(true);
    expect(failed.text).not.toMatch(/EAAlonglived/);
    expect((await api.call('GET', `/integrations/${id}`, { key })).body.integration.status).toBe('needs_reauth');

    // Paging, and the account's rows only, to reporting:read only.
    const all = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: logWindow });
    expect(all.body.rowsTotal).toBe(8);
    const paged = [];
    for (let start = 0; start < 8; start += 3) {
      paged.push(...(await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, paging: { start, length: 3 } } })).body.rows);
    }
    expect(paged).toEqual(all.body.rows);
    const other = await deployment.newAccount(`deliveries-other-${mode}@example.com`);
    const theirs = await api.call('POST', '/reporting/logs/integrationdeliveries', { key: other.apiKey, body: logWindow });
    expect(theirs.body).toEqual({ rows: [], rowsReturned: 0, rowsTotal: 0 });
    const assetsOnly = await api.call('POST', '/apikeys/generate', { key, body: { name: 'assets', permissions: ['assets:read'] } });
    expect((await api.call('POST', '/reporting/logs/integrationdeliveries', { key: assetsOnly.body.key, body: logWindow })).status).toBe(403);
    const bad = await api.call('POST', '/reporting/logs/integrationdeliveries', { key, body: { ...logWindow, kinds: ['clicks'] } });
    expect([bad.status, bad.body.details[0].field]).toEqual([400, 'kinds']);
  });
});
