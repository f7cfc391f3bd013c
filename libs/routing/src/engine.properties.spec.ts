// Properties of every walk, over arbitrary valid funnels (the funnel specs' drawFunnel) with every
// asset they name: a walk ends at a page, a URL or a stated dead end; the same seed gives the same
// walk; drawn weights approach the configured shares.
import { nodeAssetIds } from '@funnel/assets-domain';
import fc from 'fast-check';
import { drawFunnel } from '../../assets/domain/src/kinds/funnel/funnel.fixtures';
import { compileFunnel } from './engine';
import { type FunnelAssets, MAX_SERVER_STEPS, type RoutingStep } from './model';
import { landerGroup, nid, realisticVisitor, rid, tinyFunnel, walkStep } from './testing';

const SOURCE = rid('source');

/** The assets a drawn funnel names: each page group with two pages, conditions, scripts and the rest. */
function assetsOf(funnel: ReturnType<typeof drawFunnel>): FunnelAssets {
  const assets = tinyFunnel([], []);
  assets.funnel = funnel;
  const seen = new Set<string>();
  for (const node of funnel.nodes) {
    for (const { kind, id } of nodeAssetIds(node)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const pageType = node.nodeType === 'offerGroup' ? 'offer' : 'lander';
      if (kind === 'pagegroup') {
        (assets.pageGroups as unknown[]).push({
          idPageGroup: id,
          pageType,
          pages: [
            { idPage: `${id.slice(0, 11)}1`, weight: 1 },
            { idPage: `${id.slice(0, 11)}2`, weight: 2 },
          ],
        });
        for (const n of [1, 2])
          (assets.pages as unknown[]).push({ idPage: `${id.slice(0, 11)}${n}`, pageType, baseURL: `https://p${n}.example/?h={hit}&c={campaign}` });
      } else if (kind === 'condition') {
        (assets.conditions as unknown[]).push({
          idCondition: id,
          routes: [{ idRoute: 'de', routeName: 'de', ruleGroups: [{ rules: [{ attribute: 'country', operator: 'is', values: ['DE'] }] }] }],
        });
      } else if (kind === 'logicscript') {
        (assets.logicScripts as unknown[]).push({ idLogicScript: id, code: 'if country == "DE" {\n\treturn "de"\n}\nreturn "default"\n' });
      } else if (kind === 'middlewareconfig') {
        (assets.middlewareConfigs as unknown[]).push({ idMiddlewareConfig: id, routes: [{ idRoute: 'default' }], destination: { url: 'https://mw.example/' } });
      } else if (kind === 'webhookconfig') (assets.webhookConfigs as unknown[]).push({ idWebhookConfig: id });
      else if (kind === 'ainodesetting')
        (assets.aiNodeSettings as unknown[]).push({ idAINodeSetting: id, calculationParams: { minimumPercentagePerVariant: 5 } });
    }
  }
  return assets;
}

const seeds = fc.integer();
const visitors = fc.record({ country: fc.constantFrom('DE', 'FR', ''), campaign: fc.string({ maxLength: 5 }) });

describe('every walk', () => {
  it('ends at a page, a URL or a dead end with a reason, within the step limit; the same seed gives the same walk', () => {
    fc.assert(
      fc.property(fc.gen(), seeds, visitors, fc.integer({ min: 1, max: 3 }), (g, seed, who, action) => {
        const funnel = compileFunnel(assetsOf(drawFunnel(g, 12)));
        const visitor = realisticVisitor({ attributes: { country: who.country }, params: { campaign: who.campaign } });
        const step: RoutingStep = { entrance: { idTrafficSource: SOURCE } };
        const first = walkStep(funnel, visitor, step, { seed });
        expect(walkStep(funnel, visitor, step, { seed })).toEqual(first);
        for (const result of [first, walkStep(funnel, visitor, { action }, { seed, session: first.session })]) {
          const { destination } = result;
          if (destination.type === 'deadEnd') {
            expect(destination.reason).not.toBe('');
            expect(result.url).toBeNull();
            expect(result.warnings.length).toBeGreaterThan(0);
          } else {
            expect(result.url).toMatch(/^https?:\/\/\S+[?&]vid=/);
            expect(result.url).toContain(`vid=${result.session.visitorId}`);
          }
          expect(result.hits.length).toBeLessThanOrEqual(MAX_SERVER_STEPS + 1);
          expect(result.steps.every((s) => s.hitId !== '' || result.hits.length === 0)).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('weights drawn over many seeds', () => {
  it('approach the configured shares', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 10 }), { minLength: 2, maxLength: 4 }), (weights) => {
        const groups = weights.map((_, i) => landerGroup(`L${i}`));
        const funnel = compileFunnel(
          tinyFunnel(
            [
              { name: 'Root', type: 'root' },
              ...weights.map((_, i) => ({ name: `L${i}`, type: 'landerGroup', params: { nodePageGroupParams: { idPageGroup: rid(`pgL${i}`) } } })),
            ],
            weights.map((weight, i) => ({ from: 'Root', to: `L${i}`, params: { connectionRotatorParams: { weight } } })),
            { pageGroups: groups.flatMap((group) => group.pageGroups), pages: groups.flatMap((group) => group.pages) },
          ),
        );
        const total = weights.reduce((sum, weight) => sum + weight, 0);
        const expected = weights.map((weight) => (total === 0 ? 1 / weights.length : weight / total));
        const counts = weights.map(() => 0);
        const runs = 2000;
        const visitor = realisticVisitor();
        for (let seed = 0; seed < runs; seed++) {
          const at = walkStep(funnel, visitor, { entrance: { idTrafficSource: SOURCE } }, { seed }).destination.idNode;
          counts[weights.findIndex((_, i) => nid(`L${i}`) === at)] += 1;
        }
        // Within 5 percentage points (more than 4 standard deviations at 2000 draws); a zero share is never drawn.
        counts.forEach((count, i) => {
          expect(Math.abs(count / runs - expected[i])).toBeLessThan(0.05);
          if (expected[i] === 0) expect(count).toBe(0);
        });
      }),
      { numRuns: 8 },
    );
  });
});
