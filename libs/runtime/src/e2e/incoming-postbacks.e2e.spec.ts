// Incoming postbacks (issue 23) in both modes: a "network" calls /pb/ on the tracking edge for a hit an
// entrance created; the conversion shows in the drilldown, the traffic source's postback reaches a
// local receiver, unknown and foreign hits are logged and answered 200, aliases work, and an
// isConversion action converts the same way; every postback is in POST /reporting/logs/incomingpostbacks.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import { eventually } from '@funnel/testing';
import { describeInBothModes } from './harness';

let receiver: Server;
const received: string[] = [];
const env: NodeJS.ProcessEnv = { OUTBOUND_ALLOW_PRIVATE: 'true' };

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received.push(req.url ?? '');
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  env.RECEIVER = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const newId = () => generateAssetId();

describeInBothModes(
  'incoming postbacks',
  (d) => {
    let me: { apiKey: string; accountId: string };
    let other: { apiKey: string; accountId: string };
    let idTrafficSource: string;
    let idFunnel: string;
    let link: string;
    const window = () => ({ timeStart: new Date(Date.now() - 3600_000).toISOString(), timeEnd: new Date(Date.now() + 3600_000).toISOString() });

    const save = async (prefix: string, body: Record<string, unknown>) => {
      const res = await d().api.call('POST', `${prefix}/save/`, { body, key: me.apiKey });
      if (res.status !== 200) throw new Error(`POST ${prefix}/save/ answered ${res.status}: ${res.text}`);
      return body;
    };

    const hitStored = (hitId: string, accountId = me.accountId) =>
      eventually(async () => {
        const reply = await d()
          .internal()
          .request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
            context: { accountId, userId: 'test', permissions: [], correlationId: 'test' },
            body: { hitIds: [hitId] },
          });
        if (reply.hits.length !== 1) throw new Error('the hit is not stored yet');
        return reply.hits[0];
      }, 10_000);

    /** An entrance through the edge: the offer's hit id (its URL carries `sub1={hit}`) and the visitor id. */
    const enter = async () => {
      const answer = await eventually(async () => {
        const res = await fetch(link, { redirect: 'manual' });
        if (res.status !== 307) throw new Error(`the entrance answered ${res.status}`);
        return res;
      }, 10_000);
      const location = new URL(answer.headers.get('location')!);
      return { hitId: location.searchParams.get('sub1')!, vid: location.searchParams.get('vid')! };
    };

    const log = async (body: Record<string, unknown>, key = me.apiKey) => {
      const res = await d().api.call('POST', '/reporting/logs/incomingpostbacks/', { body: { ...window(), ...body }, key });
      expect(res.status).toBe(200);
      return res.body as { rows: Array<Record<string, unknown>>; rowsTotal: number; rowsReturned: number };
    };

    const outcomeOf = (postbackHit: string, expected: string) =>
      eventually(async () => {
        const { rows } = await log({ hitIds: [postbackHit] });
        const done = rows.filter((r) => r.outcome !== 'queued');
        if (done.length === 0 || done[0].outcome !== expected) throw new Error(`outcome ${JSON.stringify(rows.map((r) => r.outcome))}`);
        return done[0];
      }, 15_000);

    const pb = (query: string, accountId = me.accountId) => fetch(`${d().edgeUrl()}/a/${accountId}/pb/?${query}`);

    beforeAll(async () => {
      me = await d().newAccount(`pbin-${d().mode}@example.com`);
      other = await d().newAccount(`pbin-other-${d().mode}@example.com`);
      idTrafficSource = newId();
      await save('/trafficsource', {
        idTrafficSource,
        trafficSourceName: 'Push network',
        postback: { postbackType: 'postbackUrl', postbackCode: `${env.RECEIVER}/ts?payout={payout}&txid={txid}&hit={hitid}` },
      });
      const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Offers' });
      const network = await save('/offersource', { idOfferSource: newId(), offerSourceName: 'Network' });
      const offer = await save('/page', {
        idPage: newId(),
        pageType: 'offer',
        pageName: 'Offer',
        baseURL: 'https://offer.example.com/o?sub1={hit}',
        offerParams: { idOfferSource: network.idOfferSource, payout: 2.5 },
      });
      const offers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Offers', pageType: 'offer', pages: [{ idPage: offer.idPage }] });
      const root = { idNode: newId(), nodeName: 'Root', nodeType: 'root', posX: 0.1, posY: 0.5 };
      const offerNode = {
        idNode: newId(),
        nodeName: 'Offers',
        nodeType: 'offerGroup',
        posX: 0.5,
        posY: 0.5,
        nodePageGroupParams: { idPageGroup: offers.idPageGroup },
      };
      const thanks = {
        idNode: newId(),
        nodeName: 'Thanks',
        nodeType: 'externalUrl',
        posX: 0.9,
        posY: 0.5,
        nodeExternalUrlParams: { url: 'https://thanks.example.com/' },
      };
      idFunnel = newId();
      await save('/funnel', {
        idFunnel,
        idFunnelGroup: group.idFunnelGroup,
        funnelName: 'Postbacks',
        nodes: [root, offerNode, thanks],
        connections: [
          { idConnection: newId(), idSourceNode: root.idNode, idTargetNode: offerNode.idNode, connectionRotatorParams: { weight: 1 } },
          {
            idConnection: newId(),
            idSourceNode: offerNode.idNode,
            idTargetNode: thanks.idNode,
            connectionPageParams: { onActionNumber: 1, isConversion: true },
          },
        ],
      });
      link = `${d().edgeUrl()}/a/${me.accountId}/fts/${idFunnel}${idTrafficSource}`;
    });

    it("converts a hit from a network's /pb/ call: the drilldown counts it, the traffic source's postback fires, the log shows it applied", async () => {
      const { hitId } = await enter();
      await hitStored(hitId);
      const res = await pb(`hit=${hitId}&tx=T-1&rev=4.20`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('OK');
      const row = await outcomeOf(hitId, 'applied');
      expect(row).toMatchObject({ source: 'postback', transactionId: 'T-1', revenue: '4.20', payout: '4.2', idFunnel, idTrafficSource, ip: '127.0.0.1' });
      const hit = await hitStored(hitId);
      expect(hit.conversions).toEqual([expect.objectContaining({ transactionId: 'T-1', payout: '4.2' })]);
      await eventually(async () => {
        if (!received.some((url) => url.includes(`hit=${hitId}`) && url.includes('payout=4.2') && url.includes('txid=T-1'))) throw new Error('no postback yet');
      }, 15_000);
      const report = await d().api.call('POST', '/reporting/drilldown/', {
        key: me.apiKey,
        body: { ...window(), groupings: [{ groupBy: 'Element: Funnel' }], metrics: ['Conv.', 'Revenue'] },
      });
      expect(report.status).toBe(200);
      const totals = report.body.totals.cells.map((c: { raw: unknown }) => c.raw);
      expect(totals.slice(-2).map(Number)).toEqual([1, 4.2]);
    });

    it("takes the aliases (GET and POST form) and, without a revenue, the offer's payout; the same transaction again replaces the conversion", async () => {
      const { hitId } = await enter();
      await hitStored(hitId);
      expect((await pb(`clickid=${hitId}&txid=T-2`)).status).toBe(200);
      expect(await outcomeOf(hitId, 'applied')).toMatchObject({ revenue: '', payout: '2.5' });
      expect(
        (
          await fetch(`${d().edgeUrl()}/a/${me.accountId}/pb/`, {
            method: 'POST',
            body: new URLSearchParams({ subid: hitId, transaction_id: 'T-2', payout: '3' }),
          })
        ).status,
      ).toBe(200);
      await eventually(async () => {
        const { rows } = await log({ hitIds: [hitId], outcomes: ['applied'] });
        if (rows.length !== 2) throw new Error('not applied yet');
      }, 15_000);
      expect((await hitStored(hitId)).conversions).toEqual([expect.objectContaining({ transactionId: 'T-2', payout: '3' })]);
    });

    it("logs unknown and another account's hits, and bad values, answering 200 with nothing applied", async () => {
      const unknown = newId();
      expect((await pb(`hit=${unknown}&tx=X&rev=1`)).status).toBe(200);
      await outcomeOf(unknown, 'unknownHit');
      // A hit of this account posted back on the other account's link: unknown there, untouched here.
      const { hitId } = await enter();
      await hitStored(hitId);
      expect((await pb(`hit=${hitId}&tx=F&rev=1`, other.accountId)).status).toBe(200);
      await eventually(async () => {
        const { rows } = await log({ hitIds: [hitId], outcomes: ['unknownHit'] }, other.apiKey);
        if (rows.length !== 1) throw new Error('not logged yet');
      }, 15_000);
      expect((await log({ hitIds: [hitId] })).rowsTotal).toBe(0);
      expect((await hitStored(hitId)).conversions).toEqual([]);
      expect((await pb(`hit=not-a-hit&rev=abc`)).status).toBe(200);
      const invalid = await log({ outcomes: ['invalid'] });
      expect(invalid.rows[0]).toMatchObject({ hitId: 'not-a-hit', revenue: 'abc', jobId: null, outcome: 'invalid' });
      // Another host is no account's: 404, nothing logged.
      expect((await fetch(`${d().edgeUrl()}/pb/?hit=${hitId}`)).status).toBe(404);
    });

    it('converts the offer on an isConversion action, as a postback of source `action`', async () => {
      const { hitId, vid } = await enter();
      await hitStored(hitId);
      const res = await fetch(`${d().edgeUrl()}/a/${me.accountId}/action/1?vid=${vid}`, { redirect: 'manual' });
      expect(res.status).toBe(302);
      expect(await outcomeOf(hitId, 'applied')).toMatchObject({ source: 'action', payout: '2.5' });
      expect((await hitStored(hitId)).conversions).toEqual([expect.objectContaining({ payout: '2.5' })]);
      const actions = await log({ sources: ['action'], funnelIds: [idFunnel], paging: { start: 0, length: 1 } });
      expect(actions).toMatchObject({ rowsReturned: 1, rowsTotal: 1 });
    });
  },
  env,
);
