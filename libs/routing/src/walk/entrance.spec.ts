import { compileFunnel } from '../engine';
import type { FunnelAssets, RoutingSession } from '../model';
import { REALISTIC_IDS as I, realisticFunnelAssets, realisticVisitor, walkStep } from '../testing';

const N = I.nodes;
const entrance = (extra: Record<string, string> = {}) => ({ entrance: { idTrafficSource: I.source, ...extra } });

function withAssets(change: (assets: FunnelAssets) => void) {
  const assets = realisticFunnelAssets();
  change(assets);
  return compileFunnel(assets);
}

describe('an entrance', () => {
  const funnel = compileFunnel(realisticFunnelAssets());

  it('opens a session for a new visitor, keeping only the source’s active tracking fields', () => {
    const result = walkStep(funnel, realisticVisitor(), entrance());
    const { session } = result;
    expect(session.visitorId).toMatch(/^[0-9A-Za-z]{12}$/);
    expect(session).toMatchObject({ idFunnel: I.funnel, idTrafficSource: I.source, startedAt: realisticVisitor().time, tags: [] });
    expect(session.trackingFields).toEqual({ campaign: 'Brand-Spring', external: 'abc123', c1: '42' });
    expect(session.urlBuffer).toMatchObject({ campaign: 'Brand-Spring', utm_source: 'ads' });
  });

  it('starts at the root; its first hit is the entrance with the cost, the others cost 0 and chain', () => {
    const { hits, steps } = walkStep(funnel, realisticVisitor(), entrance());
    expect(steps[0]).toMatchObject({ idNode: N.root, decision: { kind: 'entrance', cost: '0.01', costFrom: 'trafficSource' } });
    expect(hits.map((hit) => [hit.idNode, hit.isEntrance, hit.cost])).toEqual([
      [N.root, true, '0.01'],
      [N.split, false, '0'],
      [N.device, false, '0'],
      [N.score, false, '0'],
      [N.landersA, false, '0'],
    ]);
    expect(hits[0].previousHitId).toBe('');
    for (let i = 1; i < hits.length; i++) expect(hits[i].previousHitId).toBe(hits[i - 1].hitId);
  });

  it('starts at the node the link names', () => {
    const { hits, destination } = walkStep(funnel, realisticVisitor(), { entrance: { idTrafficSource: I.source, idNode: N.landersB } });
    expect(hits.map((hit) => hit.idNode)).toEqual([N.landersB]);
    expect(hits[0].isEntrance).toBe(true);
    expect(destination).toMatchObject({ type: 'page', idPage: I.landerB1 });
  });

  it("joins the link URL's query to the request params (the params win) and reads tracking fields from both", () => {
    const visitor = realisticVisitor({ params: { zone: '7' } });
    const { session } = walkStep(funnel, visitor, entrance({ url: 'https://t.example/fts/x?campaign=Url&zone=1&extra=y' }));
    expect(session.trackingFields).toEqual({ campaign: 'Url', c1: '7' });
    expect(session.urlBuffer).toEqual({ campaign: 'Url', zone: '7', extra: 'y' });
  });

  it('keeps a returning visitor’s id, tags, sticky choices and URL buffer, and replaces tracking fields and cost', () => {
    const before: RoutingSession = {
      ...walkStep(funnel, realisticVisitor(), entrance()).session,
      tags: ['tagA'],
      sticky: { x: 'y' },
      urlBuffer: { old: '1', campaign: 'Before' },
    };
    const { session, hits } = walkStep(funnel, realisticVisitor({ params: { campaign: 'After' } }), entrance({ cost: '0.5' }), { session: before });
    expect(session.visitorId).toBe(before.visitorId);
    expect(session.tags).toEqual(['tagA']);
    expect(session.sticky).toEqual({ x: 'y' });
    expect(session.urlBuffer).toEqual({ old: '1', campaign: 'After' });
    expect(session.trackingFields).toEqual({ campaign: 'After' });
    expect(session.cost).toBe('0.5');
    expect(hits[0]).toMatchObject({ visitorId: before.visitorId, isEntrance: true, previousHitId: '' });
  });

  describe('cost', () => {
    const costOf = (assetsChange: (assets: FunnelAssets) => void, extra: Record<string, string> = {}) =>
      walkStep(withAssets(assetsChange), realisticVisitor(), entrance(extra)).steps[0].decision;
    const source = (assets: FunnelAssets) => assets.trafficSources[0] as Record<string, unknown>;

    it('takes the link cost, else the override, else the funnel, its group, the source, else 0', () => {
      const all = (assets: FunnelAssets) => {
        assets.funnel.incomingTrafficCostOverrides = { [I.source]: '0.3' };
        assets.funnel.defaultCost = '0.4';
        assets.funnelGroup = { defaultCost: '0.5' };
      };
      expect(costOf(all, { cost: '0.2' })).toMatchObject({ cost: '0.2', costFrom: 'link' });
      expect(costOf(all)).toMatchObject({ cost: '0.3', costFrom: 'funnelOverride' });
      expect(costOf((a) => (all(a), (a.funnel.incomingTrafficCostOverrides = {})))).toMatchObject({ cost: '0.4', costFrom: 'funnelDefault' });
      expect(costOf((a) => (all(a), (a.funnel.incomingTrafficCostOverrides = {}), (a.funnel.defaultCost = '')))).toMatchObject({
        cost: '0.5',
        costFrom: 'funnelGroupDefault',
      });
      expect(costOf(() => undefined)).toMatchObject({ cost: '0.01', costFrom: 'trafficSource' });
      expect(costOf((a) => (source(a).defaultCost = ''))).toMatchObject({ cost: '0', costFrom: 'none' });
    });

    it("applies the source's incomingCostModifier to the cost taken", () => {
      expect(costOf((a) => (source(a).incomingCostModifier = 120), { cost: '0.5' })).toMatchObject({ cost: '0.6', incomingCostModifier: 120 });
    });

    it('ignores a link cost that is not a decimal, with a warning', () => {
      const result = walkStep(funnel, realisticVisitor(), entrance({ cost: 'abc' }));
      expect(result.steps[0].decision).toMatchObject({ costFrom: 'trafficSource' });
      expect(result.warnings.map((w) => w.code)).toContain('invalidCost');
    });
  });

  it('warns about an unknown traffic source and still walks', () => {
    const result = walkStep(funnel, realisticVisitor(), { entrance: { idTrafficSource: 'unknownSrc00' } });
    expect(result.warnings.map((w) => w.code)).toContain('missingAsset');
    expect(result.session.trackingFields).toEqual({});
    expect(result.destination.type).toBe('page');
  });
});
