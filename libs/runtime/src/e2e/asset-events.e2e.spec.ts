import { type JsMsg, type NatsConnection, connect } from 'nats';
import { ASSET_EVENTS_STREAM, ASSET_KINDS, assetEventTypesOf, generateAssetId } from '@funnel/contracts';
import { type RunningNatsServer, startNatsServer, waitUntil } from '@funnel/testing';
import { type Deployment, describeInBothModes, standaloneDeployment } from './harness';

describeInBothModes('GET /v1/asyncapi.json', (d) => {
  it('answers 401 without a credential', async () => {
    expect((await d().api.call('GET', '/asyncapi.json', { key: '' })).status).toBe(401);
  });

  it('answers the AsyncAPI 3 document of the asset events: a channel per kind and event type', async () => {
    const res = await d().api.call('GET', '/asyncapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ asyncapi: '3.0.0', defaultContentType: 'application/json' });
    const addresses = Object.values(res.body.channels as Record<string, { address: string }>).map((channel) => channel.address);
    expect(addresses).toHaveLength(ASSET_KINDS.flatMap(assetEventTypesOf).length);
    expect(addresses).toContain('assets.events.funnel.FunnelUpdated');
  });
});

describe('standalone mode with NATS_URL: the asset events reach JetStream', () => {
  let nats: RunningNatsServer;
  let deployment: Deployment;
  let nc: NatsConnection;

  beforeAll(async () => {
    nats = await startNatsServer({ jetstream: true });
    deployment = await standaloneDeployment({ NATS_URL: nats.url });
    nc = await connect({ servers: nats.url });
  });
  afterAll(async () => {
    await nc?.close();
    await deployment?.stop();
    await deployment?.cleanup();
    await nats?.stop();
  });

  it('publishes the events of API writes on assets.events.<kind>.<EventType>, in order, without the secrets', async () => {
    const idWebhookConfig = generateAssetId();
    const body = {
      idWebhookConfig,
      webhookConfigName: 'Orders hook',
      url: 'https://hooks.example.com/orders',
      basicAuth: { username: 'u', password: 'basic-auth-clear-text' },
    };
    expect((await deployment.api.call('POST', '/webhookconfig/save/', { body })).status).toBe(200);
    expect((await deployment.api.call('PUT', '/webhookconfig/archive/', { body: { entries: [idWebhookConfig] } })).status).toBe(200);

    const seen: { subject: string; payload: any; raw: string }[] = [];
    await waitUntil(
      async () => {
        const info = await (await nc.jetstreamManager()).streams.info(ASSET_EVENTS_STREAM).catch(() => undefined);
        return (info?.state.messages ?? 0) >= 2;
      },
      'both events are in the stream',
      { timeoutMs: 20_000 },
    );
    const consumer = await nc.jetstream().consumers.get(ASSET_EVENTS_STREAM, { filterSubjects: 'assets.events.webhookconfig.>' });
    const messages = await consumer.consume();
    for await (const m of messages as AsyncIterable<JsMsg>) {
      seen.push({ subject: m.subject, payload: m.json(), raw: m.string() });
      if (seen.length === 2) break;
    }
    await messages.close();

    expect(seen.map((m) => [m.subject, m.payload.assetId, m.payload.revision])).toEqual([
      ['assets.events.webhookconfig.WebhookConfigCreated', idWebhookConfig, 0],
      ['assets.events.webhookconfig.WebhookConfigArchived', idWebhookConfig, 1],
    ]);
    expect(seen[0].payload.data.record).toMatchObject({ idWebhookConfig, hasBasicAuthPassword: true, hasSigningSecret: true, basicAuth: { username: 'u' } });
    for (const m of seen) expect(m.raw).not.toMatch(/basic-auth-clear-text|whsec_|\$secret/);
  });

  it('shows on /metrics that it is the active relay and has nothing left to publish', async () => {
    const metricsUrl = deployment.api.baseUrl.replace(/\/v1$/, '/metrics');
    await waitUntil(async () => /^asset_events_relay_lag_events\{app="standalone"\} 0$/m.test(await (await fetch(metricsUrl)).text()), 'the relay caught up', {
      timeoutMs: 20_000,
    });
    expect(await (await fetch(metricsUrl)).text()).toMatch(/^asset_events_relay_active\{app="standalone"\} 1$/m);
  });
});
