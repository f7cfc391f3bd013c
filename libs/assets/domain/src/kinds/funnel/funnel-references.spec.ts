import { isInReferenceScope } from '../kind-rules';
import { funnelReferences } from './funnel-references';
import { IDS, id, validFunnel } from './funnel.fixtures';

describe('funnelReferences', () => {
  it('given a funnel with a node of every type and overrides, when its references are listed, then every named asset is, with its field (named with its node in messages)', () => {
    const inScope = { field: 'restrictToFunnelId', allowed: ['', IDS.funnel] };
    expect(funnelReferences(validFunnel())).toEqual([
      { field: 'idFunnelGroup', kind: 'funnelgroup', id: IDS.group },
      {
        field: 'nodes[2].nodePageGroupParams.idPageGroup',
        label: `nodes[2].nodePageGroupParams.idPageGroup (node ${id('nLanders')})`,
        kind: 'pagegroup',
        id: IDS.landers,
        where: { pageType: 'lander' },
        scope: inScope,
      },
      {
        field: 'nodes[3].nodeConditionParams.idCondition',
        label: `nodes[3].nodeConditionParams.idCondition (node ${id('nDevice')})`,
        kind: 'condition',
        id: IDS.condition,
        scope: inScope,
      },
      {
        field: 'nodes[4].nodePageGroupParams.idPageGroup',
        label: `nodes[4].nodePageGroupParams.idPageGroup (node ${id('nOffers')})`,
        kind: 'pagegroup',
        id: IDS.offers,
        where: { pageType: 'offer' },
        scope: inScope,
      },
      {
        field: 'nodes[6].nodeLogicParams.idLogicScript',
        label: `nodes[6].nodeLogicParams.idLogicScript (node ${id('nScript')})`,
        kind: 'logicscript',
        id: IDS.script,
      },
      {
        field: 'nodes[7].nodeVisitorTagParams.idTags[0]',
        label: `nodes[7].nodeVisitorTagParams.idTags[0] (node ${id('nTag')})`,
        kind: 'visitortag',
        id: IDS.tag,
      },
      {
        field: 'nodes[8].nodeMiddlewareRefParams.idMiddlewareConfig',
        label: `nodes[8].nodeMiddlewareRefParams.idMiddlewareConfig (node ${id('nEnrich')})`,
        kind: 'middlewareconfig',
        id: IDS.middleware,
      },
      {
        field: 'nodes[9].nodeWebhookParams.idWebhookConfig',
        label: `nodes[9].nodeWebhookParams.idWebhookConfig (node ${id('nNotify')})`,
        kind: 'webhookconfig',
        id: IDS.webhook,
      },
      {
        field: 'nodes[10].nodeAiParams.idAINodeSetting',
        label: `nodes[10].nodeAiParams.idAINodeSetting (node ${id('nAi')})`,
        kind: 'ainodesetting',
        id: IDS.ai,
      },
      { field: `incomingTrafficCostOverrides.${IDS.source}`, kind: 'trafficsource', id: IDS.source },
      { field: 'postbackOverrides[0].idTrafficSource', kind: 'trafficsource', id: IDS.source },
    ]);
  });

  it('given nodes whose params do not fit their type or are malformed, when references are listed, then they name nothing', () => {
    const funnel = {
      idFunnel: IDS.funnel,
      nodes: [
        { idNode: 'x', nodeType: 'rotator', nodePageGroupParams: { idPageGroup: IDS.landers } },
        { idNode: 'y', nodeType: 'visitorTag', nodeVisitorTagParams: { idTags: 'all' } },
        { idNode: 'z', nodeType: 'unknown', nodeConditionParams: { idCondition: IDS.condition } },
        null,
      ],
    };
    expect(funnelReferences(funnel)).toEqual([]);
  });
});

describe('isInReferenceScope', () => {
  const reference = { field: 'f', kind: 'condition', id: IDS.condition, scope: { field: 'restrictToFunnelId', allowed: ['', IDS.funnel] } };

  it.each([
    ['global ("")', { restrictToFunnelId: '' }, true],
    ['global (absent)', {}, true],
    ['local to this funnel', { restrictToFunnelId: IDS.funnel }, true],
    ['local to another funnel', { restrictToFunnelId: IDS.group }, false],
  ])('given a referenced asset %s, when its scope is checked, then it is in scope: %s', (_, target, expected) => {
    expect(isInReferenceScope(reference, target)).toBe(expected);
  });

  it('given a reference without a scope, when checked, then any asset is in scope', () => {
    expect(isInReferenceScope({ field: 'f', kind: 'condition', id: IDS.condition }, { restrictToFunnelId: IDS.group })).toBe(true);
  });
});
