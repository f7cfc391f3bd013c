// Middleware nodes on the tracking edge, in both modes, against a local middleware server: the
// answer's route is followed, a timeout and a failure take the default, and the middleware log
// (POST /v1/reporting/logs/middleware) counts exactly the calls the server saw.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateAssetId } from '@funnel/contracts';
import { middlewareSignature } from '@funnel/platform';
import { eventually } from '@funnel/testing';
import { describeInBothModes } from './harness';

const newId = () => generateAssetId();
const HMAC = 'edge-e2e-middleware-hmac-0001';
const seen: Record<string, number> = {};
let server: Server;
let port: number;
const hanging: (() => void)[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const path = req.url!;
      seen[path] = (seen[path] ?? 0) + 1;
      if (path.startsWith('/hang')) return void hanging.push(() => res.end());
      if (path.startsWith('/fail')) return void res.writeHead(500).end('{}');
      const signed = req.headers['x-signature'] === middlewareSignature(HMAC, body);
      const payload = JSON.parse(body) as { event_type?: string };
      const tier = signed && payload.event_type === 'middleware_request' && path.startsWith('/gold') ? 'gold' : 'none';
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ tier }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  for (const end of hanging) end();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describeInBothModes(
  'middleware nodes on the tracking edge',
  (d) => {
    it('follows the matched route, takes the default on no match, timeout and failure, and logs each call once', async () => {
      const { apiKey, accountId } = await d().newAccount(`mw-${newId()}@example.com`);
      const save = async (prefix: string, body: Record<string, unknown>) => {
        const res = await d().api.call('POST', `${prefix}/save/`, { body, key: apiKey });
        if (res.status !== 200) throw new Error(`POST ${prefix}/save/ answered ${res.status}: ${res.text}`);
        return body;
      };
      const tag = newId();
      const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Mw' });
      const source = await save('/trafficsource', { idTrafficSource: newId(), trafficSourceName: 'Ads' });
      const pageGroup = async (url: string) => {
        const page = await save('/page', { idPage: newId(), pageType: 'lander', pageName: url, baseURL: url });
        return save('/pagegroup', { idPageGroup: newId(), pageGroupName: url, pageType: 'lander', pages: [{ idPage: page.idPage }] });
      };
      const gold = await pageGroup('https://gold.example.com/');
      const plain = await pageGroup('https://plain.example.com/');
      const node = (nodeType: string, params: Record<string, unknown> = {}) => ({
        idNode: newId(),
        nodeName: nodeType,
        nodeType,
        posX: 0.5,
        posY: 0.5,
        ...params,
      });
      const funnelFor = async (path: string, timeoutMs: number) => {
        const config = await save('/middlewareconfig', {
          idMiddlewareConfig: newId(),
          middlewareConfigName: path,
          routes: [{ idRoute: 'gold', priority: 1, rules: [{ field: 'body_json.tier', operator: 'is', value: 'gold' }] }],
          destination: { url: `http://127.0.0.1:${port}${path}-${tag}`, timeoutMs, hmacSecret: HMAC },
        });
        const root = node('root');
        const mw = node('middleware', { nodeMiddlewareRefParams: { idMiddlewareConfig: config.idMiddlewareConfig } });
        const a = node('landerGroup', { nodePageGroupParams: { idPageGroup: gold.idPageGroup } });
        const b = node('landerGroup', { nodePageGroupParams: { idPageGroup: plain.idPageGroup } });
        const link = (from: { idNode: string }, to: { idNode: string }, params: Record<string, unknown>) => ({
          idConnection: newId(),
          idSourceNode: from.idNode,
          idTargetNode: to.idNode,
          ...params,
        });
        const funnel = await save('/funnel', {
          idFunnel: newId(),
          idFunnelGroup: group.idFunnelGroup,
          funnelName: path,
          nodes: [root, mw, a, b],
          connections: [
            link(root, mw, { connectionRotatorParams: { weight: 1 } }),
            link(mw, a, { connectionMiddlewareParams: { onRouteId: 'gold' } }),
            link(mw, b, { connectionMiddlewareParams: { onRouteId: 'default' } }),
          ],
        });
        return { config, funnel, mw };
      };
      const cases = {
        gold: await funnelFor('/gold', 2000),
        plain: await funnelFor('/plain', 2000),
        hang: await funnelFor('/hang', 300),
        fail: await funnelFor('/fail', 2000),
      };
      const visit = async (funnel: Record<string, unknown>) => {
        const answer = await fetch(`${d().edgeUrl()}/a/${accountId}/fts/${funnel.idFunnel}${source.idTrafficSource}`, { redirect: 'manual' });
        if (answer.status < 300 || answer.status > 399) throw new Error(`the entrance answered ${answer.status}`);
        return new URL(answer.headers.get('location')!).host;
      };
      const start = new Date(Date.now() - 60_000).toISOString();
      // The edge follows the asset events: the funnels are there moments after their save.
      for (const { funnel } of Object.values(cases)) await eventually(() => visit(funnel), 10_000);
      for (const { funnel } of Object.values(cases)) await visit(funnel);
      expect(await visit(cases.gold.funnel)).toBe('gold.example.com');
      expect(await visit(cases.plain.funnel)).toBe('plain.example.com');
      expect(await visit(cases.hang.funnel)).toBe('plain.example.com');
      expect(await visit(cases.fail.funnel)).toBe('plain.example.com');

      const log = await eventually(async () => {
        const res = await d().api.call('POST', '/reporting/logs/middleware', {
          key: apiKey,
          body: { timeStart: start, timeEnd: new Date(Date.now() + 60_000).toISOString() },
        });
        if (res.status !== 200) throw new Error(`the log answered ${res.status}: ${res.text}`);
        if (res.body.rowsTotal < 12) throw new Error(`${res.body.rowsTotal} calls logged so far`);
        return res.body;
      }, 15_000);
      const byConfig = (name: keyof typeof cases) =>
        log.summary.find((row: { idMiddlewareConfig: string }) => row.idMiddlewareConfig === cases[name].config.idMiddlewareConfig);
      for (const name of Object.keys(cases) as (keyof typeof cases)[]) {
        expect(byConfig(name)).toMatchObject({ idFunnel: cases[name].funnel.idFunnel, idNode: cases[name].mw.idNode, calls: seen[`/${name}-${tag}`] });
      }
      expect(seen[`/gold-${tag}`]).toBe(3);
      expect(byConfig('gold')).toMatchObject({
        matched: 3,
        routes: [{ matchedRouteID: 'gold', calls: 3 }],
        defaults: { noMatch: 0, timeout: 0, failure: 0, overloaded: 0 },
      });
      expect(byConfig('plain')).toMatchObject({ matched: 0, routes: [], defaults: { noMatch: 3 } });
      expect(byConfig('hang')).toMatchObject({ timeouts: 3, defaults: { timeout: 3 } });
      expect(byConfig('hang').averageLatencyMs).toBeGreaterThanOrEqual(300);
      expect(byConfig('fail')).toMatchObject({ defaults: { failure: 3 } });
      expect(log.rowsTotal).toBe(12);
      expect(log.rows[0]).toMatchObject({
        idMiddlewareConfig: cases.fail.config.idMiddlewareConfig,
        defaultTaken: true,
        defaultReason: 'failure',
        status: 500,
      });

      // Filtered and paged; another account sees none of it.
      const page = await d().api.call('POST', '/reporting/logs/middleware', {
        key: apiKey,
        body: { timeStart: start, timeEnd: new Date(Date.now() + 60_000).toISOString(), defaultReasons: ['timeout'], paging: { start: 1, length: 1 } },
      });
      expect(page.body).toMatchObject({ rowsReturned: 1, rowsTotal: 3, rows: [{ defaultReason: 'timeout', status: null }] });
      const other = await d().newAccount(`mw-other-${newId()}@example.com`);
      const theirs = await d().api.call('POST', '/reporting/logs/middleware', {
        key: other.apiKey,
        body: { timeStart: start, timeEnd: new Date(Date.now() + 60_000).toISOString() },
      });
      expect(theirs.body).toMatchObject({ summary: [], rows: [], rowsTotal: 0 });
      const bad = await d().api.call('POST', '/reporting/logs/middleware', { key: apiKey, body: { timeStart: start, timeEnd: start } });
      expect(bad.status).toBe(400);
    });
  },
  { OUTBOUND_ALLOW_PRIVATE: 'true' },
);
