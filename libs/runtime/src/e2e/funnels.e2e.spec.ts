import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { generateAssetId } from '@funnel/contracts';
import { Deployment, describeInBothModes } from './harness';

// Issue 11's funnel groups (with the legacy /campaign routes) and funnels end to end, in standalone
// and distributed mode: a funnel built the way the spec's asset rules describe (its local page groups
// and condition first, then the funnel), its save rejections (FUNNEL.INVALID with every problem),
// references across accounts and to another funnel's local assets refused, validate's warnings,
// the slim records with their joins, move, and the legacy campaign shapes.

type Body = Record<string, any>;
type Account = { apiKey: string; accountId: string };
type Response = Awaited<ReturnType<Deployment['api']['call']>>;

const newId = () => generateAssetId();

/** Every file under `dir`, recursively (the event log, its WAL ...). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

function ok(res: Response, what = ''): Response {
  if (res.status !== 200) throw new Error(`${what} answered ${res.status}: ${res.text}`);
  return res;
}

const ROUTE = { idRoute: 'us', routeName: 'US', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['US'] }] }] };

const funnelGroup = (over: Body = {}) => ({ idFunnelGroup: newId(), funnelGroupName: `Spring ${newId()}`, ...over });

/** Node and connection builders: positions and names that pass the graph rules. */
const node = (nodeType: string, params: Body = {}, idNode = newId()) => ({ idNode, nodeName: nodeType, nodeType, posX: 0.5, posY: 0.5, ...params });
const link = (from: Body, to: Body, params: Body = {}) => ({ idConnection: newId(), idSourceNode: from.idNode, idTargetNode: to.idNode, ...params });

describeInBothModes('/v1 funnel groups and funnels', (d) => {
  let me: Account;
  let other: Account;
  const call = (method: string, path: string, options: { body?: unknown; key?: string } = {}) => d().api.call(method, path, { key: me.apiKey, ...options });
  const save = async (prefix: string, body: Body, key = me.apiKey) => {
    ok(await call('POST', `${prefix}/save/`, { body, key }), `POST ${prefix}/save/`);
    return body;
  };
  const getFunnel = (id: string) => call('GET', `/funnel/find/byId/?idFunnel=${id}`);

  /** The spec's way: the group, then the funnel's local page groups (with their pages) and condition, then the funnel naming them. */
  async function buildFunnel(key = me.apiKey, over: Body = {}) {
    const group = await save('/funnelgroup', funnelGroup(), key);
    const idFunnel = newId();
    const source = await save('/offersource', { idOfferSource: newId(), offerSourceName: 'Network' }, key);
    const landerPage = await save('/page', { idPage: newId(), pageType: 'lander', pageName: 'Quiz', baseURL: 'https://lp.example.com/q' }, key);
    const offerPage = await save(
      '/page',
      {
        idPage: newId(),
        pageType: 'offer',
        pageName: 'Sweeps',
        baseURL: 'https://o.example.com/g',
        offerParams: { idOfferSource: source.idOfferSource, payout: 1 },
      },
      key,
    );
    const landers = await save(
      '/pagegroup',
      { idPageGroup: newId(), pageGroupName: 'Landers', pageType: 'lander', restrictToFunnelId: idFunnel, pages: [{ idPage: landerPage.idPage }] },
      key,
    );
    const offers = await save(
      '/pagegroup',
      { idPageGroup: newId(), pageGroupName: 'Offers', pageType: 'offer', restrictToFunnelId: idFunnel, pages: [{ idPage: offerPage.idPage }] },
      key,
    );
    const condition = await save('/condition', { idCondition: newId(), conditionName: 'Geo', restrictToFunnelId: idFunnel, routes: [ROUTE] }, key);
    const root = node('root');
    const rotator = node('rotator', { nodeRotatorParams: { rotatorType: 'random' } });
    const geo = node('condition', { nodeConditionParams: { idCondition: condition.idCondition } });
    const landerNode = node('landerGroup', { nodePageGroupParams: { idPageGroup: landers.idPageGroup, accumulateUrlParams: true, additionalTokens: [] } });
    const offerNode = node('offerGroup', { nodePageGroupParams: { idPageGroup: offers.idPageGroup } });
    const exit = node('externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks' } });
    const funnel = {
      idFunnel,
      idFunnelGroup: group.idFunnelGroup,
      funnelName: 'Spring sale',
      nodes: [root, rotator, geo, landerNode, offerNode, exit],
      connections: [
        link(root, rotator, { connectionRotatorParams: { weight: 1 } }),
        link(rotator, geo, { connectionRotatorParams: { weight: 1 } }),
        link(geo, landerNode, { connectionLogicParams: { onRouteKeys: ['us', 'default'] } }),
        link(landerNode, offerNode, { connectionPageParams: { onActionNumber: 1 } }),
        link(offerNode, exit, { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
      ],
      ...over,
    };
    return { group, funnel, landers, offers, condition, nodes: { root, rotator, geo, landerNode, offerNode, exit } };
  }

  beforeAll(async () => {
    [me, other] = await Promise.all([d().newAccount(`fn-${newId()}@example.com`), d().newAccount(`fn-other-${newId()}@example.com`)]);
  });

  describe('routes', () => {
    const ROUTES: [string, string][] = [
      ...['list', 'find/byId', 'find/byIds', 'find/byStatus'].map((p): [string, string] => ['GET', p]),
      ['POST', 'save'],
      ['PUT', 'save'],
      ['POST', 'duplicate'],
      ['DELETE', 'delete'],
      ['PUT', 'archive'],
    ];
    it('serves every route of the spec table under /funnelgroup, /campaign (no unarchive) and /funnel, each a 401 without a key', async () => {
      const routes: [string, string][] = [
        ...ROUTES.map(([m, p]): [string, string] => [m, `/funnelgroup/${p}/`]),
        ['PUT', '/funnelgroup/unarchive/'],
        ...ROUTES.map(([m, p]): [string, string] => [m, `/campaign/${p}/`]),
        ...ROUTES.map(([m, p]): [string, string] => [m, `/funnel/${p}/`]),
        ...['find/byType', 'find/byCategory'].map((p): [string, string] => ['GET', `/funnel/${p}/`]),
        ['PUT', '/funnel/unarchive/'],
        ['PUT', '/funnel/move/'],
        ['POST', '/funnel/validate/'],
      ];
      for (const [method, path] of routes) {
        expect([method, path, (await call(method, path, { key: '', body: method === 'GET' ? undefined : {} })).status]).toEqual([method, path, 401]);
        const served = await call(method, path, { body: method === 'GET' ? undefined : {} });
        expect([method, path, served.body?.code]).not.toEqual([method, path, 'REQUEST.ROUTE_NOT_FOUND']);
      }
      expect((await call('PUT', '/campaign/unarchive/', { body: { entries: [] } })).body.code).toBe('REQUEST.ROUTE_NOT_FOUND');
      expect((await call('GET', `/funnelgroup/find/byId/?idFunnelGroup=${newId()}`)).status).toBe(404);
      expect((await getFunnel(newId())).status).toBe(404);
    });
  });

  describe('funnel groups', () => {
    it('saves a group and answers the saved FunnelGroup; reads it back by id, ids and list (FunnelGroupInfo with its funnels)', async () => {
      const body = funnelGroup({ trackingUrlParams: { utm_source: 'push' }, defaultCost: '0.05', meta: { color: 'teal' } });
      const created = ok(await call('POST', '/funnelgroup/save/', { body }));
      const full = { ...body, status: 'active', owner: me.accountId };
      expect(created.body).toEqual(full);
      expect(ok(await call('GET', `/funnelgroup/find/byId/?idFunnelGroup=${body.idFunnelGroup}`)).body).toEqual(full);
      expect(ok(await call('GET', `/funnelgroup/find/byIds/?idFunnelGroups=${body.idFunnelGroup}`)).body).toEqual([full]);
      const renamed = ok(await call('PUT', '/funnelgroup/save/', { body: { ...body, funnelGroupName: 'Summer' } }));
      expect(renamed.body).toEqual({ ...full, funnelGroupName: 'Summer' });

      const { group, funnel } = await buildFunnel();
      await save('/funnel', funnel);
      const list = ok(await call('GET', '/funnelgroup/list/?status=active')).body as Body[];
      expect(list.find((g) => g.idFunnelGroup === body.idFunnelGroup)).toEqual({
        idFunnelGroup: body.idFunnelGroup,
        funnelGroupName: 'Summer',
        status: 'active',
        funnels: [],
      });
      expect(list.find((g) => g.idFunnelGroup === group.idFunnelGroup)).toEqual({
        idFunnelGroup: group.idFunnelGroup,
        funnelGroupName: group.funnelGroupName,
        status: 'active',
        funnels: [
          {
            idFunnel: funnel.idFunnel,
            funnelName: 'Spring sale',
            status: 'active',
            idFunnelGroup: group.idFunnelGroup,
            funnelGroupName: group.funnelGroupName,
          },
        ],
      });
      expect((await call('GET', '/funnelgroup/list/')).status).toBe(400);
    });

    it('answers find/byStatus with CampaignInfo (legacy names), and refuses 51 tracking parameters and a negative defaultCost', async () => {
      const group = await save('/funnelgroup', funnelGroup());
      const found = (ok(await call('GET', '/funnelgroup/find/byStatus/?status=active')).body as Body[]).find((g) => g.idCampaign === group.idFunnelGroup);
      expect(found).toEqual({ idCampaign: group.idFunnelGroup, campaignName: group.funnelGroupName, status: 'active', funnels: [] });

      const params = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, 'v']));
      const tooMany = await call('POST', '/funnelgroup/save/', { body: funnelGroup({ trackingUrlParams: params }) });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.details[0].field).toBe('trackingUrlParams');
      const negative = await call('POST', '/funnelgroup/save/', { body: funnelGroup({ defaultCost: '-1' }) });
      expect(negative.body.details[0].field).toBe('defaultCost');
      expect(ok(await call('POST', '/funnelgroup/save/', { body: funnelGroup({ defaultCost: '' }) })).body.defaultCost).toBe('');
    });
  });

  describe('legacy /campaign routes', () => {
    it('shows the same record as a Campaign (idCampaign, campaignName) on requests and answers; save answers no body; no unarchive', async () => {
      const idCampaign = newId();
      const saved = ok(await call('POST', '/campaign/save/', { body: { idCampaign, campaignName: 'Legacy' } }));
      expect(saved.text).toBe('');
      const full = { idCampaign, campaignName: 'Legacy', trackingUrlParams: {}, defaultCost: '', status: 'active', owner: me.accountId };
      expect(ok(await call('GET', `/campaign/find/byId/?idCampaign=${idCampaign}`)).body).toEqual(full);
      expect(ok(await call('GET', `/campaign/find/byIds/?idCampaigns=${idCampaign}`)).body).toEqual([full]);
      expect(ok(await call('GET', `/funnelgroup/find/byId/?idFunnelGroup=${idCampaign}`)).body).toMatchObject({
        idFunnelGroup: idCampaign,
        funnelGroupName: 'Legacy',
      });
      const info = { idCampaign, campaignName: 'Legacy', status: 'active', funnels: [] };
      expect(ok(await call('GET', '/campaign/list/?status=active')).body).toContainEqual(info);
      expect(ok(await call('GET', '/campaign/find/byStatus/?status=all')).body).toContainEqual(info);

      expect(ok(await call('PUT', '/campaign/save/', { body: { idCampaign, campaignName: 'Renamed' } })).text).toBe('');
      const copy = ok(await call('POST', `/campaign/duplicate/?idCampaign=${idCampaign}`, { body: { name: 'Copy' } })).body;
      expect(ok(await call('GET', `/campaign/find/byId/?idCampaign=${copy.id}`)).body).toMatchObject({ idCampaign: copy.id, campaignName: 'Copy' });
      // bodyUpdates holds record fields, so it takes the legacy names too; a map of the client's keys keeps them.
      const updated = ok(
        await call('POST', `/campaign/duplicate/?idCampaign=${idCampaign}`, {
          body: { name: 'Copy', bodyUpdates: { campaignName: 'From updates', trackingUrlParams: { campaignName: 'kept' } } },
        }),
      ).body;
      expect(ok(await call('GET', `/campaign/find/byId/?idCampaign=${updated.id}`)).body).toMatchObject({
        campaignName: 'From updates',
        trackingUrlParams: { campaignName: 'kept' },
      });
      // Refusals name the fields as the route does.
      const refused = await call('PUT', '/campaign/save/', { body: { idCampaign, campaignName: '' } });
      expect([refused.status, refused.body.details.map((p: Body) => p.field)]).toEqual([400, ['campaignName']]);
      expect(refused.body.error).toContain('campaignName');
      expect(refused.text).not.toContain('funnelGroupName');
      const badId = await call('GET', '/campaign/find/byId/?idCampaign=nope');
      expect([badId.status, badId.body.details.map((p: Body) => p.field)]).toEqual([400, ['idCampaign']]);
      expect(badId.text).not.toContain('idFunnelGroup');
      const badUpdate = await call('POST', `/campaign/duplicate/?idCampaign=${idCampaign}`, { body: { name: 'Copy', bodyUpdates: { campaignName: '' } } });
      expect(badUpdate.status).toBe(400);
      expect(badUpdate.text).toContain('campaignName');
      expect(badUpdate.text).not.toContain('funnelGroupName');
      // The current paths keep the current names.
      expect((await call('PUT', '/funnelgroup/save/', { body: { idFunnelGroup: idCampaign, funnelGroupName: '' } })).body.details[0].field).toBe(
        'funnelGroupName',
      );
      ok(await call('PUT', '/campaign/archive/', { body: { entries: [idCampaign] } }));
      expect(ok(await call('GET', `/campaign/find/byId/?idCampaign=${idCampaign}`)).body.status).toBe('archived');
      expect((await call('PUT', '/campaign/unarchive/', { body: { entries: [idCampaign] } })).status).toBe(404);
      ok(await call('PUT', '/funnelgroup/unarchive/', { body: { entries: [idCampaign] } }));
      ok(await call('DELETE', `/campaign/delete/?idCampaign=${idCampaign}`));
      expect((await call('GET', `/campaign/find/byId/?idCampaign=${idCampaign}`)).status).toBe(404);
    });
  });

  describe('funnels', () => {
    it('saves a funnel built the spec way (local page groups and condition first) and serves every read route', async () => {
      const { group, funnel } = await buildFunnel();
      await save('/funnel', funnel);
      const full = {
        ...funnel,
        funnelType: 'visual',
        canvasWidth: 1000,
        canvasHeight: 800,
        trackingUrlParams: {},
        incomingTrafficCostOverrides: {},
        postbackOverrides: [],
        defaultCost: '',
        status: 'active',
        owner: me.accountId,
      };
      const read = ok(await getFunnel(funnel.idFunnel)).body;
      expect(read).toEqual(full);
      expect('ipAnonymizer' in read).toBe(false);
      expect(ok(await call('GET', `/funnel/find/byIds/?idFunnels=${funnel.idFunnel},${newId()}`)).body).toEqual([full]);
      expect(ok(await call('GET', `/funnel/find/byCategory/?idFunnelGroup=${group.idFunnelGroup}`)).body).toEqual([full]);

      const info = {
        idFunnel: funnel.idFunnel,
        funnelName: 'Spring sale',
        status: 'active',
        idFunnelGroup: group.idFunnelGroup,
        funnelGroupName: group.funnelGroupName,
      };
      expect(ok(await call('GET', `/funnel/list/?status=active&idFunnelGroup=${group.idFunnelGroup}`)).body).toEqual([info]);
      expect(ok(await call('GET', `/funnel/list/?status=active&idFunnelGroup=${group.idFunnelGroup}&funnelType=flow`)).body).toEqual([]);
      expect((await call('GET', '/funnel/list/')).status).toBe(400);
      expect(ok(await call('GET', '/funnel/find/byStatus/?status=all')).body).toContainEqual(info);
      expect(ok(await call('GET', '/funnel/find/byType/?funnelType=visual')).body).toContainEqual(info);
      expect((await call('GET', '/funnel/find/byType/')).status).toBe(400);

      // A renamed group shows at once in its funnels' slim records.
      ok(await call('PUT', '/funnelgroup/save/', { body: { ...group, funnelGroupName: 'Renamed group' } }));
      expect(ok(await call('GET', `/funnel/list/?status=all&idFunnelGroup=${group.idFunnelGroup}`)).body[0].funnelGroupName).toBe('Renamed group');

      // ipAnonymizer: false is kept as false; idCampaign names the group on writes.
      const { idFunnelGroup, ...withoutGroup } = funnel;
      ok(await call('PUT', '/funnel/save/', { body: { ...withoutGroup, idCampaign: idFunnelGroup, ipAnonymizer: false } }));
      expect(ok(await getFunnel(funnel.idFunnel)).body).toMatchObject({ idFunnelGroup, ipAnonymizer: false });
      expect(ok(await getFunnel(funnel.idFunnel)).body.idCampaign).toBeUndefined();
    });

    it('refuses a broken graph with 400 FUNNEL.INVALID listing every problem with its node or connection, and stores nothing', async () => {
      const { funnel, nodes } = await buildFunnel();
      const broken = {
        ...funnel,
        nodes: [...funnel.nodes, node('root'), { ...nodes.rotator }],
        connections: [
          ...funnel.connections,
          link(nodes.geo, nodes.offerNode, { connectionLogicParams: { onRouteKeys: ['Bad-Key'] } }),
          { ...link(nodes.root, nodes.rotator), idTargetNode: newId() },
        ],
      };
      const res = await call('POST', '/funnel/save/', { body: broken });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('FUNNEL.INVALID');
      const fields = res.body.details.map((p: Body) => `${p.field} ${p.code}`);
      expect(fields).toEqual(
        expect.arrayContaining([
          'nodes[7].idNode unique',
          'connections[5].connectionLogicParams.onRouteKeys[0] routeKey',
          'connections[6].idTargetNode notANode',
          expect.stringMatching(/oneRoot$/),
        ]),
      );
      expect(res.body.details.find((p: Body) => p.field === 'nodes[7].idNode').message).toContain(nodes.rotator.idNode);
      expect((await getFunnel(funnel.idFunnel)).status).toBe(404);
    });

    it('refuses references to missing assets, assets of another account, the wrong page type, another funnel local asset and a deleted group', async () => {
      const mine = await buildFunnel();
      const theirs = await buildFunnel(other.apiKey);
      const otherFunnel = await buildFunnel();
      const swap = (nodeName: string, params: Body) => mine.funnel.nodes.map((n: Body) => (n.nodeType === nodeName ? { ...n, ...params } : n));
      const cases: [string, Body, string][] = [
        ['a missing condition', { nodes: swap('condition', { nodeConditionParams: { idCondition: newId() } }) }, 'nodes[2].nodeConditionParams.idCondition'],
        [
          'another account condition',
          { nodes: swap('condition', { nodeConditionParams: { idCondition: theirs.condition.idCondition } }) },
          'nodes[2].nodeConditionParams.idCondition',
        ],
        [
          'an offer group in a lander node',
          { nodes: swap('landerGroup', { nodePageGroupParams: { idPageGroup: mine.offers.idPageGroup } }) },
          'nodes[3].nodePageGroupParams.idPageGroup',
        ],
        [
          'another funnel local page group',
          { nodes: swap('landerGroup', { nodePageGroupParams: { idPageGroup: otherFunnel.landers.idPageGroup } }) },
          'nodes[3].nodePageGroupParams.idPageGroup',
        ],
        ['another account group', { idFunnelGroup: theirs.group.idFunnelGroup }, 'idFunnelGroup'],
      ];
      for (const [what, over, field] of cases) {
        const res = await call('POST', '/funnel/save/', { body: { ...mine.funnel, ...over } });
        expect([what, res.status, res.body.code, res.body.details.map((p: Body) => p.field)]).toEqual([what, 400, 'FUNNEL.INVALID', [field]]);
      }
      const local = await call('POST', '/funnel/save/', {
        body: { ...mine.funnel, nodes: swap('landerGroup', { nodePageGroupParams: { idPageGroup: otherFunnel.landers.idPageGroup } }) },
      });
      expect(local.body.details[0].message).toContain('local to another funnel');
      // Each reference problem names its node, as the graph's problems do; validate answers the same.
      const landerNode = mine.funnel.nodes.find((n: Body) => n.nodeType === 'landerGroup')!;
      expect(local.body.details[0].message).toBe(
        `nodes[3].nodePageGroupParams.idPageGroup (node ${landerNode.idNode}): pagegroup ${otherFunnel.landers.idPageGroup} is local to another funnel`,
      );
      const validated = ok(
        await call('POST', '/funnel/validate/', {
          body: { ...mine.funnel, nodes: swap('landerGroup', { nodePageGroupParams: { idPageGroup: otherFunnel.landers.idPageGroup } }) },
        }),
      ).body;
      expect(validated.errors).toEqual(local.body.details);

      ok(await call('DELETE', '/funnelgroup/delete/', { body: { entries: [mine.group.idFunnelGroup] } }));
      const deletedGroup = await call('POST', '/funnel/save/', { body: mine.funnel });
      expect(deletedGroup.body.details.map((p: Body) => p.field)).toEqual(['idFunnelGroup']);
      expect((await getFunnel(mine.funnel.idFunnel)).status).toBe(404);
    });

    it('validates without storing: errors as save gives them, warnings for what only should be there', async () => {
      const { funnel, nodes, group } = await buildFunnel();
      const sound = ok(await call('POST', '/funnel/validate/', { body: funnel })).body;
      expect(sound).toEqual({ valid: true, errors: [], warnings: [] });
      expect((await getFunnel(funnel.idFunnel)).status).toBe(404);

      // The rotator's weight is 0.5, the offer group has no conversion, an empty page group, an unreachable node, a condition route with no connection.
      const emptyGroup = await save('/pagegroup', {
        idPageGroup: newId(),
        pageGroupName: 'Empty',
        pageType: 'lander',
        restrictToFunnelId: funnel.idFunnel,
        pages: [],
      });
      const stray = node('landerGroup', { nodePageGroupParams: { idPageGroup: emptyGroup.idPageGroup } });
      const draft = {
        ...funnel,
        nodes: [...funnel.nodes, stray],
        connections: funnel.connections.map((c: Body) =>
          c.idSourceNode === nodes.rotator.idNode
            ? { ...c, connectionRotatorParams: { weight: 0.5 } }
            : c.idSourceNode === nodes.geo.idNode
              ? { ...c, connectionLogicParams: { onRouteKeys: ['default'] } }
              : c.idSourceNode === nodes.offerNode.idNode
                ? { ...c, connectionPageParams: { onActionNumber: 1, isConversion: false } }
                : c,
        ),
      };
      const warned = ok(await call('POST', '/funnel/validate/', { body: draft })).body;
      expect(warned.valid).toBe(true);
      expect(warned.errors).toEqual([]);
      expect(warned.warnings.map((w: Body) => w.code).sort()).toEqual(
        ['emptyPageGroup', 'noConversion', 'unconnectedRoute', 'unreachable', 'weightsSum'].sort(),
      );
      // Save answers 200 even with warnings (drafts are normal).
      ok(await call('POST', '/funnel/save/', { body: draft }));

      // A second root (the graph) and a missing group (a reference): validate lists both, and so does save's 400.
      const twoKinds = { ...funnel, idFunnel: newId(), idFunnelGroup: newId(), nodes: [...funnel.nodes, node('root')] };
      const invalid = ok(await call('POST', '/funnel/validate/', { body: twoKinds })).body;
      expect(invalid.valid).toBe(false);
      expect(invalid.errors.map((p: Body) => p.field)).toEqual(expect.arrayContaining(['idFunnelGroup', expect.stringMatching(/^nodes/)]));
      const refused = await call('POST', '/funnel/save/', { body: twoKinds });
      expect([refused.status, refused.body.code]).toEqual([400, 'FUNNEL.INVALID']);
      expect(refused.body.details).toEqual(invalid.errors);
      expect((await getFunnel(twoKinds.idFunnel)).status).toBe(404);
      const badShape = ok(await call('POST', '/funnel/validate/', { body: { idFunnel: newId(), idFunnelGroup: group.idFunnelGroup } })).body;
      expect(badShape).toMatchObject({ valid: false, errors: [{ field: 'funnelName' }] });
    });

    it('delete and archive of a funnel take its local page groups and condition along, not global ones', async () => {
      const built = await buildFunnel();
      const globalGroup = await save('/pagegroup', { idPageGroup: newId(), pageGroupName: 'Global', pageType: 'lander', pages: [] });
      const funnel = {
        ...built.funnel,
        nodes: [...built.funnel.nodes, node('landerGroup', { nodePageGroupParams: { idPageGroup: globalGroup.idPageGroup } })],
      };
      await save('/funnel', funnel);
      const statusOf = async (path: string) => ok(await call('GET', path)).body.status;
      const locals = [
        `/pagegroup/find/byId/?idPageGroup=${built.landers.idPageGroup}`,
        `/pagegroup/find/byId/?idPageGroup=${built.offers.idPageGroup}`,
        `/condition/find/byId/?idCondition=${built.condition.idCondition}`,
      ];
      ok(await call('PUT', '/funnel/archive/', { body: { entries: [funnel.idFunnel] } }));
      for (const path of locals) expect([path, await statusOf(path)]).toEqual([path, 'archived']);
      expect(await statusOf(`/pagegroup/find/byId/?idPageGroup=${globalGroup.idPageGroup}`)).toBe('active');
      ok(await call('PUT', '/funnel/unarchive/', { body: { entries: [funnel.idFunnel] } }));
      expect(await statusOf(`/funnel/find/byId/?idFunnel=${funnel.idFunnel}`)).toBe('active');
      // Unarchive restores the local assets the archive archived.
      for (const path of locals) expect([path, await statusOf(path)]).toEqual([path, 'active']);
      expect(ok(await call('POST', '/funnel/validate/', { body: funnel })).body.warnings.map((w: Body) => w.code)).not.toContain('archivedReference');
      // One archived on its own: validate still answers valid, and warns that the active funnel names it.
      ok(await call('PUT', '/pagegroup/archive/', { body: { entries: [built.landers.idPageGroup] } }));
      const warned = ok(await call('POST', '/funnel/validate/', { body: funnel })).body;
      expect(warned.valid).toBe(true);
      expect(warned.warnings.filter((w: Body) => w.code === 'archivedReference')).toEqual([
        expect.objectContaining({
          field: expect.stringMatching(/^nodes\[\d+\]\.nodePageGroupParams\.idPageGroup$/),
          message: expect.stringContaining(`pagegroup ${built.landers.idPageGroup} is archived`),
        }),
      ]);

      ok(await call('DELETE', '/funnel/delete/', { body: { entries: [funnel.idFunnel] } }));
      expect((await getFunnel(funnel.idFunnel)).status).toBe(404);
      for (const path of locals) expect([path, (await call('GET', path)).status]).toEqual([path, 404]);
      expect(await statusOf(`/pagegroup/find/byId/?idPageGroup=${globalGroup.idPageGroup}`)).toBe('active');
    });

    it('deletes and archives funnel groups with a ParentMutationRequest: cascade, move, untouched; orphan is a 400', async () => {
      const a = await buildFunnel();
      await save('/funnel', a.funnel);
      const orphan = await call('DELETE', '/funnelgroup/delete/', { body: { entries: [a.group.idFunnelGroup], cascadeAction: 'orphan' } });
      expect(orphan.status).toBe(400);
      expect(orphan.body.code).toBe('ASSET.INVALID_CASCADE');

      // Archive with move: the funnels go to the (archived, but not deleted) target group.
      const target = await save('/funnelgroup', funnelGroup({ status: 'archived' }));
      ok(
        await call('PUT', '/funnelgroup/archive/', { body: { entries: [a.group.idFunnelGroup], cascadeAction: 'move', targetParentID: target.idFunnelGroup } }),
      );
      expect(ok(await getFunnel(a.funnel.idFunnel)).body).toMatchObject({ idFunnelGroup: target.idFunnelGroup, status: 'active' });
      const toEntry = await call('PUT', '/funnelgroup/archive/', {
        body: { entries: [target.idFunnelGroup], cascadeAction: 'move', targetParentID: target.idFunnelGroup },
      });
      expect(toEntry.status).toBe(400);

      // Delete with no action leaves the funnels untouched.
      const b = await buildFunnel();
      await save('/funnel', b.funnel);
      ok(await call('DELETE', `/funnelgroup/delete/?idFunnelGroup=${b.group.idFunnelGroup}`));
      expect(ok(await getFunnel(b.funnel.idFunnel)).body.status).toBe('active');

      // Archive with cascade, then unarchive: the group's funnels and their local assets come back with it.
      const statusOf = async (path: string) => ok(await call('GET', path)).body.status;
      const reached = [
        `/funnel/find/byId/?idFunnel=${a.funnel.idFunnel}`,
        `/condition/find/byId/?idCondition=${a.condition.idCondition}`,
        `/pagegroup/find/byId/?idPageGroup=${a.landers.idPageGroup}`,
      ];
      ok(await call('PUT', '/funnelgroup/unarchive/', { body: { entries: [target.idFunnelGroup] } }));
      ok(await call('PUT', '/funnelgroup/archive/', { body: { entries: [target.idFunnelGroup], cascadeAction: 'cascade' } }));
      for (const path of reached) expect([path, await statusOf(path)]).toEqual([path, 'archived']);
      ok(await call('PUT', '/funnelgroup/unarchive/', { body: { entries: [target.idFunnelGroup] } }));
      for (const path of reached) expect([path, await statusOf(path)]).toEqual([path, 'active']);

      // Delete with cascade: the group's funnels and their local assets.
      ok(await call('DELETE', '/funnelgroup/delete/', { body: { entries: [target.idFunnelGroup], cascadeAction: 'cascade' } }));
      expect((await call('GET', `/funnelgroup/find/byId/?idFunnelGroup=${target.idFunnelGroup}`)).status).toBe(404);
      expect((await getFunnel(a.funnel.idFunnel)).status).toBe(404);
      expect((await call('GET', `/condition/find/byId/?idCondition=${a.condition.idCondition}`)).status).toBe(404);
      expect((await call('GET', `/pagegroup/find/byId/?idPageGroup=${a.landers.idPageGroup}`)).status).toBe(404);
    });

    it('duplicates a funnel with copies of its local assets, every id new and every reference remapped; a group duplicate copies its funnels', async () => {
      const built = await buildFunnel();
      await save('/funnel', built.funnel);
      const target = await save('/funnelgroup', funnelGroup());
      const { id } = ok(
        await call('POST', `/funnel/duplicate/?idFunnel=${built.funnel.idFunnel}`, { body: { name: 'Copy', parentId: target.idFunnelGroup } }),
      ).body;
      const copy = ok(await getFunnel(id)).body;
      expect(copy).toMatchObject({ idFunnel: id, funnelName: 'Copy', idFunnelGroup: target.idFunnelGroup, status: 'active' });
      const sourceIds = new Set([...built.funnel.nodes.map((n: Body) => n.idNode), ...built.funnel.connections.map((c: Body) => c.idConnection)]);
      for (const n of copy.nodes) expect(sourceIds.has(n.idNode)).toBe(false);
      for (const c of copy.connections) expect(sourceIds.has(c.idConnection)).toBe(false);
      // The same shape: node i of the copy is node i of the source, connection ends follow their nodes.
      const index = (nodes: Body[], idNode: string) => nodes.findIndex((n) => n.idNode === idNode);
      expect(copy.connections.map((c: Body) => [index(copy.nodes, c.idSourceNode), index(copy.nodes, c.idTargetNode)])).toEqual(
        built.funnel.connections.map((c: Body) => [index(built.funnel.nodes, c.idSourceNode), index(built.funnel.nodes, c.idTargetNode)]),
      );
      const landerCopy = copy.nodes[3].nodePageGroupParams.idPageGroup;
      const conditionCopy = copy.nodes[2].nodeConditionParams.idCondition;
      expect(landerCopy).not.toBe(built.landers.idPageGroup);
      expect(ok(await call('GET', `/pagegroup/find/byId/?idPageGroup=${landerCopy}`)).body).toMatchObject({ restrictToFunnelId: id, pageGroupName: 'Landers' });
      expect(ok(await call('GET', `/condition/find/byId/?idCondition=${conditionCopy}`)).body).toMatchObject({
        restrictToFunnelId: id,
        routes: [expect.objectContaining({ idRoute: 'us' })],
      });
      // The source and its local assets are unchanged.
      expect(ok(await getFunnel(built.funnel.idFunnel)).body.nodes[3].nodePageGroupParams.idPageGroup).toBe(built.landers.idPageGroup);
      expect(
        ok(await call('GET', `/pagegroup/list/?status=all&pageType=lander&idFunnel=${built.funnel.idFunnel}`)).body.map((g: Body) => g.idPageGroup),
      ).toEqual([built.landers.idPageGroup]);

      const groupCopy = ok(await call('POST', `/funnelgroup/duplicate/?idFunnelGroup=${target.idFunnelGroup}`, { body: { name: 'Group copy' } })).body;
      const funnels = ok(await call('GET', `/funnel/list/?status=all&idFunnelGroup=${groupCopy.id}`)).body;
      expect(funnels).toEqual([expect.objectContaining({ funnelName: 'Copy', idFunnelGroup: groupCopy.id, funnelGroupName: 'Group copy' })]);
      expect(funnels[0].idFunnel).not.toBe(id);
    });

    it("keeps a middleware node's override secrets write-only: placeholders on reads, kept on save back and duplicate, removed by null, never stored in clear", async () => {
      const built = await buildFunnel();
      const config = await save('/middlewareconfig', {
        idMiddlewareConfig: newId(),
        middlewareConfigName: 'Fraud check',
        routes: [{ idRoute: 'fraud', priority: 10 }],
        destination: { url: 'https://mw.example.com/score' },
      });
      const [password, hmacSecret] = [`pw-${newId()}-${newId()}`, `hmac-${newId()}-${newId()}`];
      const middleware = node('middleware', {
        nodeMiddlewareRefParams: {
          idMiddlewareConfig: config.idMiddlewareConfig,
          destinationOverrides: { basicAuth: { username: 'svc', password }, hmacSecret },
        },
      });
      const funnel = {
        ...built.funnel,
        nodes: [...built.funnel.nodes, middleware],
        connections: [...built.funnel.connections, link(middleware, built.nodes.exit, { connectionMiddlewareParams: { onRouteId: 'default' } })],
      };
      await save('/funnel', funnel);
      const overridesOf = (record: Body) => record.nodes.find((n: Body) => n.nodeType === 'middleware').nodeMiddlewareRefParams.destinationOverrides;
      const read = ok(await getFunnel(funnel.idFunnel)).body;
      expect(overridesOf(read)).toEqual({ basicAuth: { username: 'svc', password: '********' }, hmacSecret: '********' });
      expect(JSON.stringify(read)).not.toContain(hmacSecret);

      ok(await call('PUT', '/funnel/save/', { body: read }));
      expect(overridesOf(ok(await getFunnel(funnel.idFunnel)).body)).toEqual({ basicAuth: { username: 'svc', password: '********' }, hmacSecret: '********' });
      const { id } = ok(await call('POST', `/funnel/duplicate/?idFunnel=${funnel.idFunnel}`, { body: { name: 'Copy' } })).body;
      expect(overridesOf(ok(await getFunnel(id)).body)).toEqual({ basicAuth: { username: 'svc', password: '********' }, hmacSecret: '********' });

      const withoutHmac = {
        ...read,
        nodes: read.nodes.map((n: Body) =>
          n.nodeType === 'middleware'
            ? { ...n, nodeMiddlewareRefParams: { ...n.nodeMiddlewareRefParams, destinationOverrides: { ...overridesOf(read), hmacSecret: null } } }
            : n,
        ),
      };
      ok(await call('PUT', '/funnel/save/', { body: withoutHmac }));
      expect(overridesOf(ok(await getFunnel(funnel.idFunnel)).body)).toEqual({ basicAuth: { username: 'svc', password: '********' } });

      const raw = filesUnder(d().dataDir).map((file) => readFileSync(file));
      for (const secret of [password, hmacSecret]) expect(raw.filter((bytes) => bytes.includes(secret))).toEqual([]);
    });

    it('moves funnels to another live group, and refuses a missing one', async () => {
      const { funnel } = await buildFunnel();
      await save('/funnel', funnel);
      const target = await save('/funnelgroup', funnelGroup());
      ok(await call('PUT', '/funnel/move/', { body: { entries: [funnel.idFunnel], idFunnelGroup: target.idFunnelGroup } }));
      expect(ok(await getFunnel(funnel.idFunnel)).body.idFunnelGroup).toBe(target.idFunnelGroup);
      expect(ok(await call('GET', `/funnel/find/byCategory/?idFunnelGroup=${target.idFunnelGroup}`)).body.map((f: Body) => f.idFunnel)).toEqual([
        funnel.idFunnel,
      ]);
      const missing = await call('PUT', '/funnel/move/', { body: { entries: [funnel.idFunnel], idFunnelGroup: newId() } });
      expect(missing.status).toBe(400);
      expect(missing.body.details[0].field).toBe('idFunnelGroup');
    });
  });
});
