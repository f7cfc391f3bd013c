// Webhook deliveries end to end (issue 23): a webhook node walked through the tracking edge, a
// conversion applied by reporting, delivered to a local receiver that verifies the signature, a
// retry after a 500, and the webhook log counting exactly what the receiver saw.
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { verifyWebhook } from '@funnel/platform';
import { eventually } from '@funnel/testing';
import type { IncomingHttpHeaders } from 'node:http';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Deployment, describeInBothModes } from './harness';

const newId = () => generateAssetId();

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}
const received: Received[] = [];
/** Webhook ids answered 500 once already (on /fail-once). */
const failedOnce = new Set<string>();
let receiver: Server;
let receiverPort: number;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      let status = 200;
      if (req.url === '/fail-once' && !failedOnce.has(id)) {
        failedOnce.add(id);
        status = 500;
      }
      received.push({ path: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString(), status });
      res.writeHead(status).end(status === 200 ? 'ok' : 'try again');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const windowAround = () => ({ timeStart: new Date(Date.now() - 3600_000).toISOString(), timeEnd: new Date(Date.now() + 3600_000).toISOString() });

describeInBothModes(
  'webhook deliveries',
  (d) => {
    /** A new account with a funnel root -> (webhook node ->) lander, and a traffic source. */
    async function setUp(
      webhookNodeConfig?: string,
      beforeFunnel: (save: (prefix: string, body: Record<string, unknown>) => Promise<unknown>) => Promise<unknown> = async () => undefined,
    ) {
      const { apiKey, accountId } = await d().newAccount(`wh-${newId()}@example.com`);
      const call = (...args: Parameters<Deployment['api']['call']>) => d().api.call(args[0], args[1], { key: apiKey, ...args[2] });
      const save = async (prefix: string, body: Record<string, unknown>) => {
        const res = await call('POST', `${prefix}/save/`, { body });
        if (res.status !== 200) throw new Error(`POST ${prefix}/save/ answered ${res.status}: ${res.text}`);
        return body;
      };
      await beforeFunnel(save);
      const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Hooks' });
      const source = await save('/trafficsource', {
        idTrafficSource: newId(),
        trafficSourceName: 'Ads',
        trackingFieldSlots: { campaign: { name: 'campaign', value: '{campaign}' } },
      });
      const page = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'Lander', baseURL: 'https://lp.example.com/l?h={hit}' });
      const landers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Landers', pageType: 'lander', pages: [{ idPage: page.idPage }] });
      const root = { idNode: newId(), nodeName: 'Root', nodeType: 'root', posX: 0.1, posY: 0.5 };
      const lander = {
        idNode: newId(),
        nodeName: 'Landers',
        nodeType: 'landerGroup',
        posX: 0.9,
        posY: 0.5,
        nodePageGroupParams: { idPageGroup: landers.idPageGroup },
      };
      const hook = webhookNodeConfig
        ? { idNode: newId(), nodeName: 'Hook', nodeType: 'webhook', posX: 0.5, posY: 0.5, nodeWebhookParams: { idWebhookConfig: webhookNodeConfig } }
        : undefined;
      const connections = hook
        ? [
            { idConnection: newId(), idSourceNode: root.idNode, idTargetNode: hook.idNode, connectionRotatorParams: { weight: 1 } },
            { idConnection: newId(), idSourceNode: hook.idNode, idTargetNode: lander.idNode },
          ]
        : [{ idConnection: newId(), idSourceNode: root.idNode, idTargetNode: lander.idNode, connectionRotatorParams: { weight: 1 } }];
      const funnel = await save('/funnel', {
        idFunnel: newId(),
        idFunnelGroup: group.idFunnelGroup,
        funnelName: 'Hook funnel',
        nodes: hook ? [root, hook, lander] : [root, lander],
        connections,
      });
      const enter = async () => {
        const link = `${d().edgeUrl()}/a/${accountId}/fts/${funnel.idFunnel}${source.idTrafficSource}?campaign=spring`;
        const res = await eventually(async () => {
          const answer = await fetch(link, { redirect: 'manual' });
          if (answer.status !== 307) throw new Error(`the entrance answered ${answer.status}`);
          return answer;
        }, 10_000);
        const location = new URL(res.headers.get('location')!);
        const landerHitId = location.searchParams.get('h')!;
        // A conversion of a hit reporting has not stored yet is `notFound`: wait for it.
        await eventually(async () => {
          const reply = await d()
            .internal()
            .request<{ hits: unknown[] }>(ReportingSubjects.hitsGet, {
              context: { accountId, userId: 'test', permissions: [], correlationId: 'test' },
              body: { hitIds: [landerHitId] },
            });
          if (reply.hits.length !== 1) throw new Error('the hit is not stored yet');
        }, 10_000);
        return { landerHitId, vid: location.searchParams.get('vid')! };
      };
      const secretOf = async (id: string) => (await call('GET', `/webhookconfig/secret/?idWebhookConfig=${id}`)).body.signingSecret as string;
      return { accountId, call, save, funnel, hookNode: hook, enter, secretOf };
    }

    const receivedFor = (configPath: string) => received.filter((r) => r.path === configPath);

    it('delivers node_execution from a webhook node walked through the edge and conversion_triggered when a conversion is applied, signed, once each', async () => {
      const idWebhookConfig = newId();
      const path = `/ok-${idWebhookConfig}`;
      const { call, funnel, hookNode, enter, secretOf } = await setUp(idWebhookConfig, (save) =>
        save('/webhookconfig', {
          idWebhookConfig,
          webhookConfigName: 'Orders',
          url: `http://127.0.0.1:${receiverPort}${path}`,
          headers: { 'X-Team': 'growth' },
          triggers: ['node_execution', 'conversion_triggered'],
        }),
      );
      const secret = await secretOf(idWebhookConfig);
      const { landerHitId, vid } = await enter();

      const [nodeExecution] = await eventually(async () => {
        const got = receivedFor(path);
        if (got.length < 1) throw new Error('no delivery yet');
        return got;
      }, 15_000);
      expect(() => verifyWebhook(secret, nodeExecution.headers, nodeExecution.body)).not.toThrow();
      expect(nodeExecution.headers).toMatchObject({
        'x-webhook-schema': 'webhook_outbound_payload_v1',
        'x-webhook-trigger': 'node_execution',
        'x-request-id': nodeExecution.headers['webhook-id'],
        'x-team': 'growth',
        'content-type': 'application/json',
      });
      const nodeBody = JSON.parse(nodeExecution.body);
      expect(nodeBody).toMatchObject({
        schema_version: 'webhook_outbound_payload_v1',
        event_type: 'node_execution',
        webhook: { id: idWebhookConfig, node_id: hookNode!.idNode },
        funnel: { id: funnel.idFunnel, node_id: hookNode!.idNode, node_type: 'webhook' },
        visitor: { id: vid },
        tracking_fields: { campaign: 'spring' },
      });
      expect(nodeBody.hit.id).toBe(nodeBody.event_id);

      const update = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: landerHitId, payout: '2.5', transactionId: 'T-1' }] } });
      expect(update.status).toBe(200);
      const deliveries = await eventually(async () => {
        const got = receivedFor(path);
        if (got.length < 2) throw new Error('no conversion delivery yet');
        return got;
      }, 15_000);
      const conversion = deliveries[1];
      expect(() => verifyWebhook(secret, conversion.headers, conversion.body)).not.toThrow();
      expect(conversion.headers['x-webhook-trigger']).toBe('conversion_triggered');
      expect(JSON.parse(conversion.body)).toMatchObject({
        event_type: 'conversion_triggered',
        event_id: `${update.body.jobIds[0]}:0`,
        hit: { id: landerHitId },
        conversion: { transaction_id: 'T-1', payout: '2.5' },
      });

      const log = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/webhooks', { body: windowAround() });
        expect(res.status).toBe(200);
        if (res.body.rowsTotal < 2) throw new Error('not logged yet');
        return res.body;
      }, 10_000);
      // The log counts exactly what the receiver saw: two deliveries, one attempt each, two ids.
      expect(receivedFor(path)).toHaveLength(2);
      expect(new Set(receivedFor(path).map((r) => r.headers['webhook-id'])).size).toBe(2);
      expect(log.summary).toEqual([
        {
          idWebhookConfig,
          idNode: hookNode!.idNode,
          deliveries: 2,
          successes: 2,
          failuresByStatus: {},
          failedDeliveries: 0,
          attempts: 2,
          retries: 0,
          averageLatencyMs: expect.any(Number),
          p95LatencyMs: expect.any(Number),
        },
      ]);
      expect(log.rows.map((r: { trigger: string; outcome: string; httpStatus: number }) => [r.trigger, r.outcome, r.httpStatus])).toEqual([
        ['conversion_triggered', 'delivered', 200],
        ['node_execution', 'delivered', 200],
      ]);
      expect(log.rows.map((r: { deliveryId: string }) => r.deliveryId).sort()).toEqual(
        receivedFor(path)
          .map((r) => String(r.headers['webhook-id']))
          .sort(),
      );
    });

    it('retries a delivery answered 500 under the same webhook id, and logs both attempts; an allFunnels config takes conversions of a funnel without a webhook node', async () => {
      const { call, save, enter, secretOf } = await setUp();
      const idWebhookConfig = newId();
      await save('/webhookconfig', {
        idWebhookConfig,
        webhookConfigName: 'Every conversion',
        url: `http://127.0.0.1:${receiverPort}/fail-once`,
        triggers: ['conversion_triggered'],
        allFunnels: true,
      });
      const secret = await secretOf(idWebhookConfig);
      const { landerHitId } = await enter();
      const before = receivedFor('/fail-once').length;
      const update = await call('PUT', '/reporting/update/conversions/', { body: { hits: [{ hitId: landerHitId, payout: '1' }] } });
      expect(update.status).toBe(200);
      const ours = (r: Received) => JSON.parse(r.body).event_id === `${update.body.jobIds[0]}:0`;
      const attempts = await eventually(async () => {
        const got = receivedFor('/fail-once').slice(before).filter(ours);
        if (got.length < 2) throw new Error('no retry yet');
        return got;
      }, 20_000);
      expect(attempts.map((r) => r.status)).toEqual([500, 200]);
      expect(attempts[0].headers['webhook-id']).toBe(attempts[1].headers['webhook-id']);
      for (const attempt of attempts) expect(() => verifyWebhook(secret, attempt.headers, attempt.body)).not.toThrow();

      const log = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/webhooks', { body: { ...windowAround(), webhookConfigIds: [idWebhookConfig] } });
        if (res.body.rowsTotal < 2) throw new Error('not logged yet');
        return res.body;
      }, 10_000);
      expect(log.summary).toEqual([
        {
          idWebhookConfig,
          idNode: '',
          deliveries: 1,
          successes: 1,
          failuresByStatus: { '500': 1 },
          failedDeliveries: 0,
          attempts: 2,
          retries: 1,
          averageLatencyMs: expect.any(Number),
          p95LatencyMs: expect.any(Number),
        },
      ]);
      expect(log.rows.map((r: { attempt: number; outcome: string; httpStatus: number }) => [r.attempt, r.outcome, r.httpStatus])).toEqual([
        [2, 'delivered', 200],
        [1, 'retrying', 500],
      ]);
      // Nothing more comes: the delivered webhook is never sent again.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receivedFor('/fail-once').slice(before).filter(ours)).toHaveLength(2);
    });

    it('delivers custom_event_triggered to the config of the funnel webhook node that takes it; a conversion applied again unchanged fires nothing', async () => {
      const idWebhookConfig = newId();
      const path = `/events-${idWebhookConfig}`;
      const { call, hookNode, enter, secretOf } = await setUp(idWebhookConfig, (save) =>
        save('/webhookconfig', {
          idWebhookConfig,
          webhookConfigName: 'Events',
          url: `http://127.0.0.1:${receiverPort}${path}`,
          triggers: ['custom_event_triggered', 'conversion_triggered'],
        }),
      );
      const secret = await secretOf(idWebhookConfig);
      const { landerHitId } = await enter();
      const trigger = (r: Received) => r.headers['x-webhook-trigger'];
      const until = (count: number) =>
        eventually(async () => {
          const got = receivedFor(path);
          if (got.length < count) throw new Error(`${got.length} of ${count} deliveries`);
          return got;
        }, 15_000);

      const events = await call('PUT', '/reporting/update/customevents/', {
        body: { hits: [{ hitId: landerHitId, eventNumber: 3, count: 2, time: '2026-03-01T10:00:00Z' }] },
      });
      expect(events.status).toBe(200);
      const [custom] = await until(1);
      // The walk through the webhook node sends nothing: the config does not take node_execution.
      expect(trigger(custom)).toBe('custom_event_triggered');
      expect(() => verifyWebhook(secret, custom.headers, custom.body)).not.toThrow();
      expect(JSON.parse(custom.body)).toMatchObject({
        schema_version: 'webhook_outbound_payload_v1',
        event_type: 'custom_event_triggered',
        event_id: `${events.body.jobIds[0]}:0`,
        timestamp: '2026-03-01T10:00:00.000Z',
        webhook: { id: idWebhookConfig, node_id: hookNode!.idNode },
        hit: { id: landerHitId },
        custom_event: { event_number: 3, count: 2, time: '2026-03-01T10:00:00.000Z' },
      });

      const conversion = { hits: [{ hitId: landerHitId, payout: '3', transactionId: 'T-9', time: '2026-03-01T11:00:00Z' }] };
      expect((await call('PUT', '/reporting/update/conversions/', { body: conversion })).status).toBe(200);
      await until(2);
      // The same conversion again changes nothing (a noop row): no event. The custom event after it
      // is applied after it (an account's jobs in order), so its delivery comes after the noop's would.
      expect((await call('PUT', '/reporting/update/conversions/', { body: conversion })).status).toBe(200);
      const last = await call('PUT', '/reporting/update/customevents/', { body: { hits: [{ hitId: landerHitId, eventNumber: 4 }] } });
      expect(last.status).toBe(200);
      await until(3);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(receivedFor(path).map(trigger)).toEqual(['custom_event_triggered', 'conversion_triggered', 'custom_event_triggered']);
      expect(JSON.parse(receivedFor(path)[2].body)).toMatchObject({ event_id: `${last.body.jobIds[0]}:0`, custom_event: { event_number: 4, count: 1 } });

      const log = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/webhooks', { body: { ...windowAround(), triggers: ['custom_event_triggered'] } });
        if (res.body.rowsTotal < 2) throw new Error('not logged yet');
        return res.body;
      }, 10_000);
      expect(log.rowsTotal).toBe(2);
      expect(log.summary).toEqual([expect.objectContaining({ idWebhookConfig, idNode: hookNode!.idNode, deliveries: 2, successes: 2, attempts: 2 })]);
    });

    it('answers the log only for the caller account, and refuses a bad window', async () => {
      const { call } = await setUp();
      const res = await call('POST', '/reporting/logs/webhooks', { body: windowAround() });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ summary: [], rows: [], rowsReturned: 0, rowsTotal: 0 });
      const bad = await call('POST', '/reporting/logs/webhooks', { body: { timeStart: '2026-01-01T00:00:00Z', timeEnd: '2027-06-01T00:00:00Z' } });
      expect(bad.status).toBe(400);
    });
  },
  { OUTBOUND_ALLOW_PRIVATE: 'true' },
);
