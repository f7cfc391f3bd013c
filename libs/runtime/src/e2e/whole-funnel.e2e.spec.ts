// The whole funnel of issue 23, in both modes, against real local servers on 127.0.0.1: a visitor
// walks root -> middleware node -> webhook node -> lander group -> offer group, takes the offer's
// isConversion action, then a network posts back a conversion of the offer hit on /pb/. Every party
// outside the service (the middleware server, the webhook receiver, the traffic source's postback
// receiver) saw exactly what the service's logs count, and the drilldown holds both conversions.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import { middlewareSignature, verifyWebhook } from '@funnel/platform';
import { eventually } from '@funnel/testing';
import { describeInBothModes } from './harness';

const newId = () => generateAssetId();
const HMAC = 'whole-funnel-middleware-hmac-01';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
/** Every request each local server got, by path (each test's paths carry its own tag). */
const received: Received[] = [];
let server: Server;
let base: string;

/**
 * One local server plays the three outside parties, told apart by path:
 * - `/mw-<tag>`: the middleware server; answers `{ verdict: 'human' }` to a signed middleware_request;
 * - `/hook-<tag>`: the webhook receiver (the test verifies the signatures);
 * - `/ts-<tag>`: the traffic source's postback receiver.
 */
beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const path = req.url!;
      received.push({ path, headers: req.headers, body });
      if (path.startsWith('/mw-')) {
        const signed = req.headers['x-signature'] === middlewareSignature(HMAC, body);
        const human = signed && (JSON.parse(body) as { event_type?: string }).event_type === 'middleware_request';
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ verdict: human ? 'human' : 'bot' }));
      }
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const windowAround = () => ({ timeStart: new Date(Date.now() - 3600_000).toISOString(), timeEnd: new Date(Date.now() + 3600_000).toISOString() });
const node = (nodeType: string, params: Record<string, unknown> = {}) => ({ idNode: newId(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown> = {}) => ({
  idConnection: newId(),
  idSourceNode: from.idNode,
  idTargetNode: to.idNode,
  ...params,
});

describeInBothModes(
  'the whole funnel (middleware, webhook, lander, offer, postbacks)',
  (d) => {
    it('walks root -> middleware -> webhook -> lander -> offer -> conversion, and every receiver saw exactly what the logs count', async () => {
      const tag = newId();
      const paths = { mw: `/mw-${tag}`, hook: `/hook-${tag}`, ts: `/ts-${tag}` };
      const at = (path: string) => received.filter((r) => r.path.split('?')[0] === path);
      const { apiKey, accountId } = await d().newAccount(`whole-${tag}@example.com`);
      const call = (method: string, path: string, body?: unknown) => d().api.call(method, path, { key: apiKey, body });
      const save = async (prefix: string, body: Record<string, unknown>) => {
        const res = await call('POST', `${prefix}/save/`, body);
        if (res.status !== 200) throw new Error(`POST ${prefix}/save/ answered ${res.status}: ${res.text}`);
        return body;
      };

      // The assets, saved through the API as a user builds them.
      const source = await save('/trafficsource', {
        idTrafficSource: newId(),
        trafficSourceName: 'Push network',
        trackingFieldSlots: { campaign: { name: 'campaign', value: '{campaign}' } },
        postback: { postbackType: 'postbackUrl', postbackCode: `${base}${paths.ts}?payout={payout}&txid={txid}&hit={hitid}` },
      });
      const mwConfig = await save('/middlewareconfig', {
        idMiddlewareConfig: newId(),
        middlewareConfigName: 'Bot check',
        routes: [{ idRoute: 'human', priority: 1, rules: [{ field: 'body_json.verdict', operator: 'is', value: 'human' }] }],
        destination: { url: `${base}${paths.mw}`, timeoutMs: 2000, hmacSecret: HMAC },
      });
      const hookConfig = await save('/webhookconfig', {
        idWebhookConfig: newId(),
        webhookConfigName: 'CRM',
        url: `${base}${paths.hook}`,
        triggers: ['node_execution', 'conversion_triggered'],
      });
      const secret = (await call('GET', `/webhookconfig/secret/?idWebhookConfig=${hookConfig.idWebhookConfig}`)).body.signingSecret as string;
      const network = await save('/offersource', { idOfferSource: newId(), offerSourceName: 'Network' });
      const lander = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'Lander', baseURL: 'https://lp.example.com/l?h={hit}' });
      const offer = await save('/page', {
        idPage: newId(),
        pageType: 'offer',
        pageName: 'Offer',
        baseURL: 'https://offer.example.com/o?sub1={hit}',
        offerParams: { idOfferSource: network.idOfferSource, payout: 2.5 },
      });
      const landers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Landers', pageType: 'lander', pages: [{ idPage: lander.idPage }] });
      const offers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Offers', pageType: 'offer', pages: [{ idPage: offer.idPage }] });
      const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Whole funnel' });
      const root = node('root');
      const mw = node('middleware', { nodeMiddlewareRefParams: { idMiddlewareConfig: mwConfig.idMiddlewareConfig } });
      const bots = node('externalUrl', { nodeExternalUrlParams: { url: 'https://bots.example.com/' } });
      const hook = node('webhook', { nodeWebhookParams: { idWebhookConfig: hookConfig.idWebhookConfig } });
      const landerNode = node('landerGroup', { nodePageGroupParams: { idPageGroup: landers.idPageGroup } });
      const offerNode = node('offerGroup', { nodePageGroupParams: { idPageGroup: offers.idPageGroup } });
      const thanks = node('externalUrl', { nodeExternalUrlParams: { url: 'https://thanks.example.com/' } });
      const funnel = await save('/funnel', {
        idFunnel: newId(),
        idFunnelGroup: group.idFunnelGroup,
        funnelName: 'Whole funnel',
        nodes: [root, mw, bots, hook, landerNode, offerNode, thanks],
        connections: [
          link(root, mw, { connectionRotatorParams: { weight: 1 } }),
          link(mw, hook, { connectionMiddlewareParams: { onRouteId: 'human' } }),
          link(mw, bots, { connectionMiddlewareParams: { onRouteId: 'default' } }),
          link(hook, landerNode),
          link(landerNode, offerNode, { connectionPageParams: { onActionNumber: 1 } }),
          link(offerNode, thanks, { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
        ],
      });
      const hitStored = (hitId: string) =>
        eventually(async () => {
          const reply = await d()
            .internal()
            .request<{ hits: unknown[] }>(ReportingSubjects.hitsGet, {
              context: { accountId, userId: 'test', permissions: [], correlationId: 'test' },
              body: { hitIds: [hitId] },
            });
          if (reply.hits.length !== 1) throw new Error('the hit is not stored yet');
        }, 10_000);

      // The visitor: the entrance (the edge follows the asset events: the funnel is there moments after its save).
      const edge = `${d().edgeUrl()}/a/${accountId}`;
      const entrance = await eventually(async () => {
        const res = await fetch(`${edge}/fts/${funnel.idFunnel}${source.idTrafficSource}?campaign=spring`, { redirect: 'manual' });
        if (res.status !== 307) throw new Error(`the entrance answered ${res.status}`);
        return new URL(res.headers.get('location')!);
      }, 10_000);
      // The middleware's route led through the webhook node to the lander.
      expect(entrance.origin).toBe('https://lp.example.com');
      const vid = entrance.searchParams.get('vid')!;
      // The lander's action 1: the offer, whose URL carries the offer hit for the network.
      const toOffer = await fetch(`${edge}/action/1?vid=${vid}`, { redirect: 'manual' });
      expect(toOffer.status).toBe(307);
      const offerUrl = new URL(toOffer.headers.get('location')!);
      expect(offerUrl.origin).toBe('https://offer.example.com');
      const offerHit = offerUrl.searchParams.get('sub1')!;
      await hitStored(offerHit);
      // The offer's isConversion action: a conversion at the offer's payout.
      const converted = await fetch(`${edge}/action/1?vid=${vid}`, { redirect: 'manual' });
      expect(converted.status).toBe(302);
      expect(converted.headers.get('location')).toMatch(/^https:\/\/thanks\.example\.com\//);
      // The network's postback of the offer hit: a second transaction, with its own revenue.
      const pb = await fetch(`${edge}/pb/?hit=${offerHit}&tx=NET-1&rev=4.20`);
      expect(pb.status).toBe(200);

      // The incoming postback log: both conversions applied, the network's with its address and values.
      const postbacks = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/incomingpostbacks/', { ...windowAround(), hitIds: [offerHit] });
        expect(res.status).toBe(200);
        const rows = res.body.rows as Array<Record<string, unknown>>;
        if (rows.length !== 2 || rows.some((r) => r.outcome !== 'applied')) throw new Error(`outcomes ${JSON.stringify(rows.map((r) => r.outcome))}`);
        return res.body;
      }, 15_000);
      expect(postbacks.rowsTotal).toBe(2);
      expect(postbacks.rows).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ source: 'action', outcome: 'applied', payout: '2.5', idFunnel: funnel.idFunnel }),
          expect.objectContaining({
            source: 'postback',
            outcome: 'applied',
            transactionId: 'NET-1',
            revenue: '4.20',
            payout: '4.2',
            idFunnel: funnel.idFunnel,
            idTrafficSource: source.idTrafficSource,
            ip: '127.0.0.1',
          }),
        ]),
      );

      // The drilldown: two conversions, 2.5 + 4.2 of revenue.
      const report = await eventually(async () => {
        const res = await call('POST', '/reporting/drilldown/', {
          ...windowAround(),
          groupings: [{ groupBy: 'Element: Funnel' }],
          metrics: ['Conv.', 'Revenue'],
        });
        expect(res.status).toBe(200);
        const totals = res.body.totals.cells.map((c: { raw: unknown }) => Number(c.raw)).slice(-2);
        if (totals[0] !== 2) throw new Error(`totals ${JSON.stringify(totals)}`);
        return totals;
      }, 15_000);
      expect(report[1]).toBeCloseTo(6.7, 6);

      // The traffic source's postback reached its receiver, for the network's conversion.
      await eventually(async () => {
        if (!at(paths.ts).some((r) => r.path.includes('txid=NET-1') && r.path.includes('payout=4.2'))) throw new Error('no traffic source postback yet');
      }, 15_000);

      // The webhook receiver: node_execution once (the visitor passed the webhook node once) and
      // conversion_triggered once per conversion, each signed, no event twice; the log lists the same deliveries.
      const deliveries = await eventually(async () => {
        const got = at(paths.hook);
        if (got.length < 3) throw new Error(`${got.length} deliveries so far`);
        return got;
      }, 20_000);
      for (const delivery of deliveries) expect(() => verifyWebhook(secret, delivery.headers, delivery.body)).not.toThrow();
      const events = deliveries.map(
        (r) => JSON.parse(r.body) as { event_type: string; event_id: string; hit: { id: string }; conversion?: Record<string, unknown> },
      );
      expect(events.filter((e) => e.event_type === 'node_execution')).toEqual([
        expect.objectContaining({
          funnel: expect.objectContaining({ id: funnel.idFunnel, node_id: hook.idNode }),
          visitor: expect.objectContaining({ id: vid }),
        }),
      ]);
      const conversions = events.filter((e) => e.event_type === 'conversion_triggered');
      expect(conversions.map((e) => [e.hit.id, e.conversion?.transaction_id, e.conversion?.payout]).sort()).toEqual([
        [offerHit, '', '2.5'],
        [offerHit, 'NET-1', '4.2'],
      ]);
      const webhookLog = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/webhooks', { ...windowAround(), webhookConfigIds: [hookConfig.idWebhookConfig] });
        expect(res.status).toBe(200);
        if (res.body.rowsTotal < 3) throw new Error('not logged yet');
        return res.body;
      }, 10_000);
      // Nothing more arrives: every event was delivered exactly once.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const deliveryIds = at(paths.hook).map((r) => String(r.headers['webhook-id']));
      expect(deliveryIds).toHaveLength(3);
      expect(new Set(deliveryIds).size).toBe(3);
      expect(webhookLog.summary).toEqual([
        expect.objectContaining({ idWebhookConfig: hookConfig.idWebhookConfig, deliveries: 3, successes: 3, attempts: 3, retries: 0, failedDeliveries: 0 }),
      ]);
      expect(webhookLog.rows.map((r: { deliveryId: string }) => r.deliveryId).sort()).toEqual([...deliveryIds].sort());
      expect(webhookLog.rows.map((r: { trigger: string }) => r.trigger).sort()).toEqual(['conversion_triggered', 'conversion_triggered', 'node_execution']);

      // The middleware server saw exactly the calls the middleware log counts: one, the entrance's, matched.
      const mwLog = await eventually(async () => {
        const res = await call('POST', '/reporting/logs/middleware', windowAround());
        expect(res.status).toBe(200);
        if (res.body.rowsTotal < 1) throw new Error('no call logged yet');
        return res.body;
      }, 15_000);
      expect(at(paths.mw)).toHaveLength(1);
      expect(mwLog.rowsTotal).toBe(at(paths.mw).length);
      expect(mwLog.summary).toEqual([
        expect.objectContaining({
          idMiddlewareConfig: mwConfig.idMiddlewareConfig,
          idFunnel: funnel.idFunnel,
          idNode: mw.idNode,
          calls: 1,
          matched: 1,
          routes: [{ matchedRouteID: 'human', calls: 1 }],
          timeouts: 0,
        }),
      ]);
    });
  },
  { OUTBOUND_ALLOW_PRIVATE: 'true' },
);
