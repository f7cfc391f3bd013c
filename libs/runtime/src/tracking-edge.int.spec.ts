// The tracking edge as each mode starts it (the harness's deployments): a funnel saved through the API
// is served on the edge's port, its hits reach reporting, and the edge answers its domain check and
// probes. (The full visitor journey, crash and speed tests are the edge's e2e suite.)
import { ReportingSubjects, generateAssetId } from '@funnel/contracts';
import type { Hit } from '@funnel/reporting-domain';
import { eventually } from '@funnel/testing';
import { describeInBothModes } from './e2e/harness';

const newId = () => generateAssetId();

describeInBothModes('the tracking edge as started', (d) => {
  it('serves an entrance link of a funnel saved through the API, and its hits reach reporting', async () => {
    const { apiKey, accountId } = await d().newAccount(`edge-${newId()}@example.com`);
    const save = async (prefix: string, body: Record<string, unknown>) => {
      const res = await d().api.call('POST', `${prefix}/save/`, { body, key: apiKey });
      if (res.status !== 200) throw new Error(`POST ${prefix}/save/ answered ${res.status}: ${res.text}`);
      return body;
    };
    const group = await save('/funnelgroup', { idFunnelGroup: newId(), funnelGroupName: 'Edge' });
    const source = await save('/trafficsource', {
      idTrafficSource: newId(),
      trafficSourceName: 'Ads',
      defaultCost: '0.02',
      trackingFieldSlots: { campaign: { name: 'campaign', value: '{campaign}' } },
    });
    const page = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'Lander', baseURL: 'https://lp.example.com/l?h={hit}' });
    const landers = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Landers', pageType: 'lander', pages: [{ idPage: page.idPage }] });
    const root = { idNode: newId(), nodeName: 'Root', nodeType: 'root', posX: 0.1, posY: 0.5 };
    const lander = {
      idNode: newId(),
      nodeName: 'Landers',
      nodeType: 'landerGroup',
      posX: 0.5,
      posY: 0.5,
      nodePageGroupParams: { idPageGroup: landers.idPageGroup },
    };
    const funnel = await save('/funnel', {
      idFunnel: newId(),
      idFunnelGroup: group.idFunnelGroup,
      funnelName: 'Edge funnel',
      nodes: [root, lander],
      connections: [{ idConnection: newId(), idSourceNode: root.idNode, idTargetNode: lander.idNode, connectionRotatorParams: { weight: 1 } }],
    });
    const link = `${d().edgeUrl()}/a/${accountId}/fts/${funnel.idFunnel}${source.idTrafficSource}?campaign=spring`;
    // The edge follows the asset events: the funnel is there moments after its save.
    const res = await eventually(async () => {
      const answer = await fetch(link, { redirect: 'manual' });
      if (answer.status !== 307) throw new Error(`the entrance answered ${answer.status}`);
      return answer;
    }, 10_000);
    const location = new URL(res.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe('https://lp.example.com/l');
    const vid = location.searchParams.get('vid')!;
    const hitId = location.searchParams.get('h')!;
    const hits = await eventually(async () => {
      const reply = await d()
        .internal()
        .request<{ hits: Hit[] }>(ReportingSubjects.hitsGet, {
          context: { accountId, userId: 'test', permissions: [], correlationId: 'test' },
          body: { hitIds: [hitId] },
        });
      if (reply.hits.length !== 1) throw new Error('the hit is not stored yet');
      return reply.hits;
    }, 10_000);
    expect(hits[0]).toMatchObject({ hitId, visitorId: vid, idFunnel: funnel.idFunnel, idNode: lander.idNode, accountId });
    // Another account's path to the same funnel is a 404.
    const other = await d().newAccount(`edge-${newId()}@example.com`);
    expect((await fetch(link.replace(accountId, other.accountId), { redirect: 'manual' })).status).toBe(404);
  });

  it('answers the domain check, its probes and metrics', async () => {
    const check = await fetch(`${d().edgeUrl()}/debug/domain-check`);
    expect(await check.json()).toEqual({ service: 'funnel-edge', domain: '127.0.0.1' });
    expect((await fetch(`${d().edgeUrl()}/health/ready`)).status).toBe(200);
    expect(await (await fetch(`${d().edgeUrl()}/metrics`)).text()).toContain('edge_snapshot_ready');
  });
});
