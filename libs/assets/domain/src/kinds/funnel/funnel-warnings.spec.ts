import { funnelWarnings } from './funnel-warnings';
import { IDS, id, validFunnel, warningContext } from './funnel.fixtures';
import type { FunnelRecord } from './funnel-types';

type Loose = Record<string, unknown>;

const codesOf = (problems: { field: string; code: string }[]) => problems.map((p) => `${p.field}:${p.code}`);

function funnelWith(change: (funnel: FunnelRecord, nodes: Loose[], connections: Loose[]) => void): FunnelRecord {
  const funnel = validFunnel();
  change(funnel, funnel.nodes as unknown as Loose[], funnel.connections as unknown as Loose[]);
  return funnel;
}

const N = (name: string) => validFunnel().nodes.findIndex((node) => node.idNode === id(`n${name}`));
const C = (name: string) => validFunnel().connections.findIndex((connection) => connection.idConnection === id(`c${name}`));
const without =
  (...names: string[]) =>
  (funnel: FunnelRecord) => {
    funnel.connections = funnel.connections.filter((connection) => !names.map((name) => id(`c${name}`)).includes(connection.idConnection));
  };

describe('funnelWarnings', () => {
  it('given the funnel with every route connected and every page group holding pages, when validated, then there is no warning', () => {
    expect(funnelWarnings(validFunnel(), warningContext())).toEqual([]);
  });

  it('given a logic, a middleware and an AI node without a connection taking default, when validated, then each is warned about', () => {
    const funnel = funnelWith((_, __, connections) => {
      connections[C('8')].connectionLogicParams = { onRouteKeys: ['buyer'] };
      connections[C('10')].connectionMiddlewareParams = { onRouteId: 'enriched' };
      connections[C('12')].connectionLogicParams = { onRouteKeys: ['best'] };
    });
    const warnings = funnelWarnings(funnel, warningContext());
    expect(codesOf(warnings)).toEqual([`nodes[${N('Script')}]:noDefaultRoute`, `nodes[${N('Enrich')}]:noDefaultRoute`, `nodes[${N('Ai')}]:noDefaultRoute`]);
    expect(warnings[0].message).toBe(
      `nodes[${N('Script')}] (node ${id('nScript')}): no connection takes the route key default, the fallback when no other route applies`,
    );
  });

  it('given a condition route (or its default) with no connection, when validated, then the node is warned about, naming the routes', () => {
    const warnings = funnelWarnings(
      funnelWith(without('7')),
      warningContext({ conditionRouteKeys: new Map([[IDS.condition, ['mobile', 'tablet', 'default']]]) }),
    );
    expect(codesOf(warnings)).toEqual([`nodes[${N('Device')}]:unconnectedRoute`]);
    expect(warnings[0].message).toBe(`nodes[${N('Device')}] (node ${id('nDevice')}): no connection takes the condition's routes tablet, default`);
  });

  it("given a route key the node's logic script can return that no connection takes, when validated, then the node is warned about", () => {
    const warnings = funnelWarnings(validFunnel(), warningContext({ logicScriptRouteKeys: new Map([[IDS.script, ['buyer', 'vip', 'default']]]) }));
    expect(codesOf(warnings)).toEqual([`nodes[${N('Script')}]:unconnectedRoute`]);
    expect(warnings[0].message).toContain("no connection takes the script's route vip");
  });

  it('given a page group with no pages, when validated, then its node is warned about', () => {
    const warnings = funnelWarnings(validFunnel(), warningContext({ pageGroupPageCounts: new Map([[IDS.landers, 0]]) }));
    expect(codesOf(warnings)).toEqual([`nodes[${N('Landers')}].nodePageGroupParams.idPageGroup:emptyPageGroup`]);
    expect(warnings[0].message).toBe(`nodes[${N('Landers')}] (node ${id('nLanders')}): page group ${IDS.landers} holds no pages`);
  });

  it('given rotator weights that do not sum to 1, when validated, then the rotator is warned about; sums within rounding are not', () => {
    const warnings = funnelWarnings(
      funnelWith((_, __, connections) => (connections[C('3')].connectionRotatorParams = { weight: 0.4 })),
      warningContext(),
    );
    expect(codesOf(warnings)).toEqual([`nodes[${N('Split')}]:weightsSum`]);
    expect(warnings[0].message).toContain('the weights of its 2 connections sum to 0.9, not 1');

    const thirds = funnelWith((_, __, connections) => {
      connections[C('2')].connectionRotatorParams = { weight: 0.1 };
      connections[C('3')].connectionRotatorParams = { weight: 0.2 };
      connections.push({ idConnection: id('c13'), idSourceNode: id('nSplit'), idTargetNode: id('nExit'), connectionRotatorParams: { weight: 0.7 } });
    });
    expect(funnelWarnings(thirds, warningContext())).toEqual([]);
  });

  it('given nodes no path from the root reaches, when validated, then each is warned about', () => {
    const warnings = funnelWarnings(funnelWith(without('9')), warningContext());
    expect(codesOf(warnings)).toEqual([`nodes[${N('Enrich')}]:unreachable`, `nodes[${N('Notify')}]:unreachable`, `nodes[${N('Ai')}]:unreachable`]);
    expect(warnings[0].message).toBe(`nodes[${N('Enrich')}] (node ${id('nEnrich')}): no path from the root reaches it`);
  });

  it('given an offer-group node with no conversion action, when validated, then it is warned about', () => {
    const warnings = funnelWarnings(
      funnelWith((_, __, connections) => (connections[C('5')].connectionPageParams = { onActionNumber: 1 })),
      warningContext(),
    );
    expect(codesOf(warnings)).toEqual([`nodes[${N('Offers')}]:noConversion`]);
  });

  it('given assets the context does not know (missing references), when validated, then they give no warning', () => {
    const empty = { conditionRouteKeys: new Map(), logicScriptRouteKeys: new Map(), pageGroupPageCounts: new Map(), archived: new Map() };
    expect(funnelWarnings(validFunnel(), empty)).toEqual([]);
  });

  it('given an active funnel whose nodes name archived assets, when validated, then each naming field is warned about; an archived funnel is not', () => {
    const archived = new Map([
      ['pagegroup', new Set([IDS.landers])],
      ['visitortag', new Set([IDS.tag])],
    ]);
    const warnings = funnelWarnings(validFunnel(), warningContext({ archived }));
    const [landers, tags] = [N('Landers'), validFunnel().nodes.findIndex((node) => node.nodeType === 'visitorTag')];
    expect(codesOf(warnings)).toEqual([
      `nodes[${landers}].nodePageGroupParams.idPageGroup:archivedReference`,
      `nodes[${tags}].nodeVisitorTagParams.idTags[0]:archivedReference`,
    ]);
    expect(warnings[0].message).toBe(
      `nodes[${landers}].nodePageGroupParams.idPageGroup (node ${id('nLanders')}): pagegroup ${IDS.landers} is archived, and the funnel is active`,
    );
    expect(funnelWarnings({ ...validFunnel(), status: 'archived' }, warningContext({ archived }))).toEqual([]);
  });

  it('given a malformed record, when validated, then the readable parts are warned about and nothing throws', () => {
    const record = {
      nodes: [null, { idNode: id('nRoot'), nodeType: 'root' }, { idNode: id('nLost'), nodeType: 'rotator' }],
      connections: [42, { idSourceNode: 7 }],
    };
    expect(codesOf(funnelWarnings(record, warningContext()))).toEqual(['nodes[2]:unreachable']);
    expect(funnelWarnings({ nodes: 'none' }, warningContext())).toEqual([]);
  });

  it('given more than 20 warnings, when validated, then the first 20 are listed and the rest counted', () => {
    const funnel = funnelWith(without('1'));
    for (let i = 0; i < 25; i++)
      funnel.nodes.push({
        idNode: id(`nExtra${i}`),
        nodeName: 'x',
        nodeType: 'webhook',
        posX: 0,
        posY: 0,
        nodeWebhookParams: { idWebhookConfig: IDS.webhook },
      });
    const warnings = funnelWarnings(funnel, warningContext());
    expect(warnings).toHaveLength(21);
    expect(warnings[20]).toEqual({ field: '', code: 'moreProblems', message: 'and 15 more problems' });
  });
});
