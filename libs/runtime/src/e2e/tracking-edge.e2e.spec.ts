import { generateAssetId } from '@funnel/contracts';
import { eventually } from '@funnel/testing';
import { describeInBothModes } from './harness';
import { paramsOf, visit } from './edge-visitor';

/**
 * The tracking edge end to end (issue 22), in standalone and distributed mode: assets saved through
 * the API, a visitor following entrance -> lander -> action -> offer over HTTP on a tracking domain,
 * the redirects' tokens and `vid`, the hits in reporting's raw events, visitor explorer and
 * drilldown, a save that changes the next redirect, an unknown link, and the domain check.
 */

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };

/** The default tracking domain: links carry their account, `/a/<accountId>/fts/<token>`. */
const DOMAIN = 'track.e2e.example';
const CHECK_TOKEN = 'edge-check-token-e2e';
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const newId = () => generateAssetId();

describeInBothModes(
  'the tracking edge',
  (d) => {
    let me: Account;
    let other: Account;
    const call = (method: string, path: string, options: { body?: unknown; key?: string } = {}) => d().api.call(method, path, { key: me.apiKey, ...options });
    const ok = async (method: string, path: string, body?: unknown): Promise<Body> => {
      const answer = await call(method, path, { body });
      if (answer.status !== 200) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.text.slice(0, 500)}`);
      return answer.body;
    };
    const edgePort = () => Number(new URL(d().edgeUrl()).port);
    const onEdge = (path: string, options?: Parameters<typeof visit>[3]) => visit(edgePort(), DOMAIN, path, options);
    const window = () => ({ timeStart: iso(Date.now() - HOUR), timeEnd: iso(Date.now() + HOUR) });

    let source: Body;
    let lander: Body;
    let offer: Body;
    let funnel: Body;
    let nodes: Record<'root' | 'landers' | 'offers' | 'thanks', Body>;
    let token: string;

    beforeAll(async () => {
      [me, other] = await Promise.all([d().newAccount(`edge-${newId()}@example.com`), d().newAccount(`edge-other-${newId()}@example.com`)]);
      const group = { idFunnelGroup: newId(), funnelGroupName: 'Edge e2e' };
      await ok('POST', '/funnelgroup/save/', group);
      source = {
        idTrafficSource: newId(),
        trafficSourceName: 'Push network',
        defaultCost: '0.01',
        trackingFieldSlots: { c1: { name: 'zone', value: '{zone}' } },
      };
      await ok('POST', '/trafficsource/save/', source);
      const network = { idOfferSource: newId(), offerSourceName: 'Network' };
      await ok('POST', '/offersource/save/', network);
      // The lander redirects with its redirect type, 301; the offer with the pages' default, 307.
      lander = {
        idPage: newId(),
        pageType: 'lander',
        pageName: 'Quiz',
        redirectType: '301',
        baseURL: 'https://lp.example.com/quiz?h={hit}&v={visitor}&ts={traffic-source-id}',
      };
      offer = {
        idPage: newId(),
        pageType: 'offer',
        pageName: 'Sweeps',
        baseURL: 'https://offers.example.com/go?h={hit}&v={visitor}',
        offerParams: { idOfferSource: network.idOfferSource, payout: 2.5 },
      };
      await ok('POST', '/page/save/', lander);
      await ok('POST', '/page/save/', offer);
      const landers = { idPageGroup: newId(), pageGroupName: 'Quiz landers', pageType: 'lander', pages: [{ idPage: lander.idPage }] };
      const offers = { idPageGroup: newId(), pageGroupName: 'Sweeps offers', pageType: 'offer', pages: [{ idPage: offer.idPage }] };
      await ok('POST', '/pagegroup/save/', landers);
      await ok('POST', '/pagegroup/save/', offers);
      const node = (nodeType: string, params: Body = {}) => ({ idNode: newId(), nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
      nodes = {
        root: node('root'),
        landers: node('landerGroup', { nodePageGroupParams: { idPageGroup: landers.idPageGroup } }),
        offers: node('offerGroup', { nodePageGroupParams: { idPageGroup: offers.idPageGroup } }),
        thanks: node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks' } }),
      };
      const link = (from: Body, to: Body, params: Body) => ({ idConnection: newId(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });
      funnel = {
        idFunnel: newId(),
        idFunnelGroup: group.idFunnelGroup,
        funnelName: 'Edge e2e funnel',
        nodes: Object.values(nodes),
        connections: [
          link(nodes.root, nodes.landers, { connectionRotatorParams: { weight: 1 } }),
          link(nodes.landers, nodes.offers, { connectionPageParams: { onActionNumber: 1 } }),
          link(nodes.offers, nodes.thanks, { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
        ],
      };
      await ok('POST', '/funnel/save/', funnel);
      token = `${funnel.idFunnel}${source.idTrafficSource}`;
      // The edge follows the saves: the link works once its snapshot has the funnel.
      await eventually(async () => expect((await onEdge(`/a/${me.accountId}/fts/${token}`)).status).toBe(301), 10_000, 50);
    });

    it('routes a visitor from the entrance to the lander, then by action 1 to the offer, each redirect carrying its hit, the visitor and the traffic source', async () => {
      const entrance = await onEdge(`/a/${me.accountId}/fts/${token}?zone=4411&cost=0.05`);
      expect(entrance.status).toBe(301);
      expect(entrance.location).toMatch(/^https:\/\/lp\.example\.com\/quiz\?/);
      const atLander = paramsOf(entrance.location);
      expect(atLander.ts).toBe(source.idTrafficSource);
      expect(atLander.h).toMatch(/^[0-9A-Za-z]{12}$/);
      expect(atLander.v).toMatch(/^[0-9A-Za-z]{12}$/);
      // Every redirect carries the visitor as `vid`, which the page passes on to its action link.
      expect(atLander.vid).toBe(atLander.v);

      const action = await onEdge(`/a/${me.accountId}/action/1?vid=${atLander.vid}`);
      expect(action.status).toBe(307);
      expect(action.location).toMatch(/^https:\/\/offers\.example\.com\/go\?/);
      const atOffer = paramsOf(action.location);
      // The offer's URL names the same visitor: the lander's `vid` found the session.
      expect(atOffer).toMatchObject({ v: atLander.v, vid: atLander.v });
      expect(atOffer.h).not.toBe(atLander.h);

      // Reporting has both hits: the lander's entrance with its cost and tracking field, the offer's reached by action 1 from it.
      const hits = await eventually(async () => {
        const answer = await ok('POST', '/reporting/rawevents/', {
          ...window(),
          filters: [{ groupBy: 'Hit: Hit ID', whitelistFilters: [atLander.h, atOffer.h] }],
          limit: 100,
        });
        expect(answer.hits).toHaveLength(2);
        return answer.hits as Body[];
      }, 15_000);
      const landerHit = hits.find((hit) => hit.hitId === atLander.h)!;
      const offerHit = hits.find((hit) => hit.hitId === atOffer.h)!;
      expect(landerHit).toMatchObject({
        visitorId: atLander.v,
        idFunnel: funnel.idFunnel,
        idFunnelGroup: funnel.idFunnelGroup,
        idTrafficSource: source.idTrafficSource,
        idNode: nodes.landers.idNode,
        idPage: lander.idPage,
        nodeType: 'landerGroup',
        trackingFields: { c1: '4411' },
        action: 0,
        clicks: 1,
      });
      expect(offerHit).toMatchObject({
        visitorId: atLander.v,
        idNode: nodes.offers.idNode,
        idPage: offer.idPage,
        nodeType: 'offerGroup',
        isEntrance: false,
        action: 1,
        previousHitId: atLander.h,
      });
      expect(Number(offerHit.cost)).toBe(0);

      // Every hit of the visit (the root's and the lander's at the entrance, the offer's) for the visitor, one entrance carrying the cost.
      const visit = await ok('POST', '/reporting/explorer/visitor/', { visitorId: atLander.v, ...window() });
      const visited = visit.hits as Body[];
      expect(visited.map((hit) => hit.hitId)).toEqual(expect.arrayContaining([atLander.h, atOffer.h]));
      expect(new Set(visited.map((hit) => hit.hitId)).size).toBe(visited.length);
      expect(visited.filter((hit) => hit.isEntrance)).toHaveLength(1);
      expect(visited.reduce((sum, hit) => sum + Number(hit.cost), 0)).toBeCloseTo(0.05, 6);

      // The drilldown of the funnel counts it: one entrance, a lander view and click, an offer view, the cost.
      const report = await ok('POST', '/reporting/drilldown/', {
        ...window(),
        groupings: [{ groupBy: 'Element: Funnel', whitelistFilters: [funnel.idFunnel] }, { groupBy: 'Third Parties: Traffic Source' }],
        metrics: ['Entrances', 'Lander Views', 'Lander Clicks', 'Offer Views', 'Cost'],
      });
      const column = (name: string) => report.columns.findIndex((c: Body) => c.name === name);
      expect(report.rows).toHaveLength(1);
      const [row] = report.rows;
      expect(row.cells[column('Element: Funnel')]).toMatchObject({ raw: funnel.idFunnel, formatted: 'Edge e2e funnel' });
      expect(row.cells[column('Third Parties: Traffic Source')]).toMatchObject({ raw: source.idTrafficSource, formatted: 'Push network' });
      expect(Number(row.cells[column('Entrances')].raw)).toBeGreaterThanOrEqual(1);
    });

    it('counts each visit once in the drilldown: entrances, lander views and clicks, offer views and cost add up over three visitors', async () => {
      const before = await funnelTotals();
      for (const zone of ['1', '2', '3']) {
        const entrance = await onEdge(`/a/${me.accountId}/fts/${token}?zone=${zone}&cost=0.1`);
        expect(entrance.status).toBe(301);
        if (zone !== '3') expect((await onEdge(`/a/${me.accountId}/action/1?vid=${paramsOf(entrance.location).v}`)).status).toBe(307);
      }
      await eventually(async () => {
        const after = await funnelTotals();
        expect({
          entrances: after.Entrances - before.Entrances,
          landerViews: after['Lander Views'] - before['Lander Views'],
          landerClicks: after['Lander Clicks'] - before['Lander Clicks'],
          offerViews: after['Offer Views'] - before['Offer Views'],
        }).toEqual({ entrances: 3, landerViews: 3, landerClicks: 2, offerViews: 2 });
        expect(after.Cost - before.Cost).toBeCloseTo(0.3, 6);
      }, 15_000);
    });

    /** The funnel's totals row. */
    async function funnelTotals(): Promise<Record<string, number>> {
      const metrics = ['Entrances', 'Lander Views', 'Lander Clicks', 'Offer Views', 'Cost'];
      const report = await ok('POST', '/reporting/drilldown/', {
        ...window(),
        groupings: [{ groupBy: 'Element: Funnel', whitelistFilters: [funnel.idFunnel] }],
        metrics,
      });
      return Object.fromEntries(metrics.map((name) => [name, Number(report.totals.cells[report.columns.findIndex((c: Body) => c.name === name)].raw ?? 0)]));
    }

    it('uses a page saved through the API on the next redirects', async () => {
      await ok('PUT', '/page/save/', { ...lander, baseURL: 'https://lp2.example.com/quiz-b?h={hit}' });
      await eventually(
        async () => {
          const entrance = await onEdge(`/a/${me.accountId}/fts/${token}`);
          expect(entrance.location).toMatch(/^https:\/\/lp2\.example\.com\/quiz-b\?h=[0-9A-Za-z]{12}/);
        },
        5000,
        20,
      );
      await ok('PUT', '/page/save/', lander);
      await eventually(async () => expect((await onEdge(`/a/${me.accountId}/fts/${token}`)).location).toMatch(/^https:\/\/lp\.example\.com\//), 5000, 20);
    });

    it("answers a clear 404 page for an unknown token, another account's funnel, a malformed link and an unknown tracking domain", async () => {
      const pages = [
        await onEdge(`/a/${me.accountId}/fts/${newId()}${newId()}`),
        await onEdge(`/a/${other.accountId}/fts/${token}`),
        await onEdge(`/a/${me.accountId}/fts/not-a-token`),
        await onEdge(`/a/${me.accountId}/action/99?vid=${newId()}`),
        await visit(edgePort(), 'unknown.example', `/fts/${token}`),
      ];
      for (const page of pages) {
        expect(page.status).toBe(404);
        expect(page.contentType).toMatch(/^text\/html/);
        expect(page.location).toBeUndefined();
      }
    });

    it('answers the domain check that billing expects of its edge', async () => {
      const check = await visit(edgePort(), 'links.customer.example', '/debug/domain-check');
      expect(check.status).toBe(200);
      expect(JSON.parse(check.body)).toEqual({ service: 'funnel-edge', domain: 'links.customer.example', token: CHECK_TOKEN });
    });
  },
  { EDGE_DEFAULT_DOMAIN: DOMAIN, EDGE_CHECK_TOKEN: CHECK_TOKEN },
);
