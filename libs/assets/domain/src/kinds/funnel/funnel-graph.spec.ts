import fc from 'fast-check';
import { checkFunnelGraph } from './funnel-graph';
import { IDS, drawFunnel, id, validFunnel } from './funnel.fixtures';
import type { FunnelRecord } from './funnel-types';

type Funnel = FunnelRecord & Record<string, unknown>;
type Loose = Record<string, unknown>;

const codesOf = (problems: { field: string; code: string }[]) => problems.map((p) => `${p.field}:${p.code}`);

/** The valid funnel, changed by `change` (which may mutate it freely). */
function funnelWith(change: (funnel: Funnel, nodes: Loose[], connections: Loose[]) => void): Funnel {
  const funnel = validFunnel() as Funnel;
  change(funnel, funnel.nodes as unknown as Loose[], funnel.connections as unknown as Loose[]);
  return funnel;
}

/** Index of a node or connection of the valid funnel by its name (`Split`, `7`). */
const N = (name: string) => validFunnel().nodes.findIndex((node) => node.idNode === id(`n${name}`));
const C = (name: string) => validFunnel().connections.findIndex((connection) => connection.idConnection === id(`c${name}`));

function expectProblems(funnel: Funnel, ...expected: string[]) {
  expect(codesOf(checkFunnelGraph(funnel))).toEqual(expected);
}

describe('checkFunnelGraph', () => {
  it('given a funnel with a node of every type, wired as each type allows, when checked, then nothing is wrong', () => {
    expect(checkFunnelGraph(validFunnel())).toEqual([]);
  });

  it('given a funnel without nodes or connections (a new draft), when checked, then nothing is wrong', () => {
    expect(checkFunnelGraph({ idFunnel: IDS.funnel, nodes: [], connections: [] })).toEqual([]);
    expect(checkFunnelGraph({ idFunnel: IDS.funnel })).toEqual([]);
  });

  it('given any valid funnel drawn at random, when checked, then nothing is wrong', () => {
    fc.assert(fc.property(fc.gen(), (g) => expect(checkFunnelGraph(drawFunnel(g))).toEqual([])));
  });

  describe('ids', () => {
    it('given two nodes with one id, when checked, then the second is rejected, naming the first', () => {
      const funnel = funnelWith((_, nodes, connections) => {
        nodes[N('Exit')].idNode = id('nLanders');
        connections[C('5')].idTargetNode = id('nLanders');
      });
      const problems = checkFunnelGraph(funnel);
      expect(codesOf(problems)).toEqual([`nodes[${N('Exit')}].idNode:unique`]);
      expect(problems[0].message).toBe(`nodes[${N('Exit')}].idNode (node ${id('nLanders')}): nodes[${N('Landers')}] has the same idNode`);
    });

    it('given two connections with one id, when checked, then the second is rejected', () => {
      expectProblems(
        funnelWith((_, __, connections) => (connections[C('5')].idConnection = id('c4'))),
        `connections[${C('5')}].idConnection:unique`,
      );
    });

    it('given a connection with the id of a node, or a node with the funnel id, when checked, then both are rejected', () => {
      expectProblems(
        funnelWith((funnel, nodes, connections) => {
          connections[C('2')].idConnection = id('nTag');
          nodes[N('Exit')].idNode = funnel.idFunnel;
          connections[C('5')].idTargetNode = funnel.idFunnel;
        }),
        `nodes[${N('Exit')}].idNode:unique`,
        `connections[${C('2')}].idConnection:unique`,
      );
    });

    it('given a node whose id is an asset id the funnel references, when checked, then it is rejected', () => {
      const funnel = funnelWith((_, nodes, connections) => {
        nodes[N('Device')].idNode = IDS.condition;
        connections[C('3')].idTargetNode = IDS.condition;
        connections[C('6')].idSourceNode = IDS.condition;
        connections[C('7')].idSourceNode = IDS.condition;
      });
      expectProblems(funnel, `nodes[${N('Device')}].idNode:idIsReference`);
    });

    it('given ids that are not asset ids, when checked, then each is rejected without echoing it', () => {
      const problems = checkFunnelGraph(
        funnelWith((_, nodes, connections) => {
          nodes[N('Exit')].idNode = 'exit';
          connections[C('1')].idConnection = 42;
          (nodes[N('Landers')].nodePageGroupParams as Loose).idPageGroup = 'short';
          (nodes[N('Tag')].nodeVisitorTagParams as Loose).idTags = [IDS.tag, 'x'];
        }),
      );
      expect(codesOf(problems)).toEqual([
        `nodes[${N('Landers')}].nodePageGroupParams.idPageGroup:isAssetId`,
        `nodes[${N('Exit')}].idNode:isAssetId`,
        `nodes[${N('Tag')}].nodeVisitorTagParams.idTags[1]:isAssetId`,
        `connections[${C('1')}].idConnection:invalidType`,
        `connections[${C('5')}].idTargetNode:notANode`,
      ]);
      expect(problems[1].message).toBe(`nodes[${N('Exit')}].idNode: must be an asset id (12 characters of 0-9, A-Z, a-z)`);
    });
  });

  describe('nodes', () => {
    it('given a node without a name, of an unknown type, or placed off the canvas, when checked, then each field is rejected', () => {
      expectProblems(
        funnelWith((_, nodes) => {
          nodes[N('Exit')].nodeName = '';
          nodes[N('Tag')].nodeType = 'tag';
          nodes[N('Tag')].posX = 1.5;
          nodes[N('Ai')].posY = -0.1;
          delete nodes[N('Ai')].posX;
        }),
        `nodes[${N('Exit')}].nodeName:range`,
        `nodes[${N('Tag')}].nodeType:isIn`,
        `nodes[${N('Tag')}].posX:range`,
        `nodes[${N('Ai')}].posX:required`,
        `nodes[${N('Ai')}].posY:range`,
      );
    });

    it('given a node with params of another type, when checked, then they do not fit', () => {
      const problems = checkFunnelGraph(funnelWith((_, nodes) => (nodes[N('Split')].nodePageGroupParams = { idPageGroup: IDS.landers })));
      expect(codesOf(problems)).toEqual([`nodes[${N('Split')}].nodePageGroupParams:notAllowed`]);
      expect(problems[0].message).toContain('does not fit a rotator node (its params are nodeRotatorParams)');
    });

    it('given nodes without the params their type needs, when checked, then each is required; a root needs none', () => {
      expectProblems(
        funnelWith((_, nodes) => {
          delete nodes[N('Split')].nodeRotatorParams;
          delete nodes[N('Device')].nodeConditionParams;
          nodes[N('Notify')].nodeWebhookParams = 'hook';
        }),
        `nodes[${N('Split')}].nodeRotatorParams:required`,
        `nodes[${N('Device')}].nodeConditionParams:required`,
        `nodes[${N('Notify')}].nodeWebhookParams:invalidType`,
      );
    });

    it('given malformed params of each type, when checked, then each field is named', () => {
      expectProblems(
        funnelWith((_, nodes) => {
          nodes[N('Root')].nodeRotatorParams = { rotatorType: 'weighted' };
          nodes[N('Landers')].nodePageGroupParams = {
            idPageGroup: IDS.landers,
            accumulateUrlParams: 'yes',
            additionalTokens: [
              { key: 'a', value: '1' },
              { key: 'a', value: '2' },
              { key: 'bad key', value: 3 },
            ],
          };
          nodes[N('Exit')].nodeExternalUrlParams = { url: 'https://{host}/x' };
          nodes[N('Script')].nodeLogicParams = {};
          nodes[N('Tag')].nodeVisitorTagParams = { idTags: [] };
        }),
        `nodes[${N('Root')}].nodeRotatorParams.rotatorType:isIn`,
        `nodes[${N('Landers')}].nodePageGroupParams.accumulateUrlParams:invalidType`,
        `nodes[${N('Landers')}].nodePageGroupParams.additionalTokens[1].key:unique`,
        `nodes[${N('Landers')}].nodePageGroupParams.additionalTokens[2].key:range`,
        `nodes[${N('Landers')}].nodePageGroupParams.additionalTokens[2].value:invalidType`,
        `nodes[${N('Exit')}].nodeExternalUrlParams.url:isUrl`,
        `nodes[${N('Script')}].nodeLogicParams.idLogicScript:required`,
        `nodes[${N('Tag')}].nodeVisitorTagParams.idTags:range`,
      );
    });

    it('given a visitor-tag node naming a tag twice, when checked, then the repeat is rejected', () => {
      expectProblems(
        funnelWith((_, nodes) => (nodes[N('Tag')].nodeVisitorTagParams = { idTags: [IDS.tag, IDS.tag] })),
        `nodes[${N('Tag')}].nodeVisitorTagParams.idTags[1]:unique`,
      );
    });

    it('given middleware overrides with an unknown field, a bad header and a short HMAC secret, when checked, then each is rejected; placeholders pass', () => {
      const at = `nodes[${N('Enrich')}].nodeMiddlewareRefParams.destinationOverrides`;
      expectProblems(
        funnelWith((_, nodes) => {
          nodes[N('Enrich')].nodeMiddlewareRefParams = {
            idMiddlewareConfig: IDS.middleware,
            destinationOverrides: {
              url: 'https://elsewhere.example.com',
              headers: { 'Bad Header': 'x', 'X-Ok': 'a\r\nb' },
              basicAuth: { username: 'a:b' },
              hmacSecret: 'short',
            },
          };
        }),
        `${at}.url:notAllowed`,
        `${at}.headers:isIn`,
        `${at}.headers.X-Ok:isIn`,
        `${at}.basicAuth.username:isIn`,
        `${at}.hmacSecret:range`,
      );
      for (const hmacSecret of ['********', '', null, 'a-secret-of-16-chars']) {
        expect(
          checkFunnelGraph(funnelWith((_, nodes) => ((nodes[N('Enrich')].nodeMiddlewareRefParams as Loose).destinationOverrides = { hmacSecret }))),
        ).toEqual([]);
      }
    });

    it('given two roots, when checked, then the second is rejected; given nodes and no root, then the funnel is', () => {
      expectProblems(
        funnelWith((_, nodes) => {
          nodes[N('Exit')].nodeType = 'root';
          delete nodes[N('Exit')].nodeExternalUrlParams;
        }),
        `nodes[${N('Exit')}].nodeType:oneRoot`,
        `connections[${C('5')}].idTargetNode:intoRoot`,
      );
      expectProblems(
        funnelWith((funnel) => {
          funnel.nodes = funnel.nodes.filter((node) => node.nodeType === 'externalUrl');
          funnel.connections = [];
        }),
        'nodes:oneRoot',
      );
    });

    it('given more than 500 nodes or 2000 connections, when checked, then the lists are rejected', () => {
      const many = funnelWith((funnel) => {
        funnel.nodes = Array.from({ length: 501 }, () => funnel.nodes[0]);
        funnel.connections = Array.from({ length: 2001 }, () => funnel.connections[0]);
      });
      expectProblems(many, 'nodes:range', 'connections:range');
      expect(checkFunnelGraph(many)[0].message).toBe('nodes: a funnel has at most 500 nodes, got 501');
    });

    it('given nodes or connections that are not lists, when checked, then they are rejected', () => {
      expectProblems({ ...validFunnel(), nodes: {}, connections: 'none' } as unknown as Funnel, 'nodes:invalidType', 'connections:invalidType');
    });
  });

  describe('connections', () => {
    it('given connection ends that are not nodes of the funnel, when checked, then each is rejected, naming the connection', () => {
      const problems = checkFunnelGraph(
        funnelWith((_, __, connections) => {
          connections[C('4')].idTargetNode = id('nGone');
          delete connections[C('9')].idSourceNode;
        }),
      );
      expect(codesOf(problems)).toEqual([`connections[${C('4')}].idTargetNode:notANode`, `connections[${C('9')}].idSourceNode:required`]);
      expect(problems[0].message).toBe(`connections[${C('4')}].idTargetNode (connection ${id('c4')}): names no node of the funnel (${id('nGone')})`);
    });

    it('given a connection from a node to itself, or into the root, when checked, then it is rejected', () => {
      expectProblems(
        funnelWith((_, __, connections) => {
          connections[C('4')].idTargetNode = id('nLanders');
          connections[C('12')].idTargetNode = id('nRoot');
        }),
        `connections[${C('4')}].idTargetNode:selfConnection`,
        `connections[${C('12')}].idTargetNode:intoRoot`,
      );
    });

    it('given params that do not fit the source node type, or none where the type needs them, when checked, then they are rejected', () => {
      const problems = checkFunnelGraph(
        funnelWith((_, __, connections) => {
          connections[C('2')].connectionPageParams = { onActionNumber: 1 };
          delete connections[C('4')].connectionPageParams;
          connections[C('9')].connectionLogicParams = { onRouteKeys: ['default'] };
        }),
      );
      expect(codesOf(problems)).toEqual([
        `connections[${C('2')}].connectionPageParams:notAllowed`,
        `connections[${C('4')}].connectionPageParams:required`,
        `connections[${C('9')}].connectionLogicParams:notAllowed`,
      ]);
      expect(problems[0].message).toContain('does not fit a connection from a rotator node (its params are connectionRotatorParams)');
      expect(problems[2].message).toContain('does not fit a connection from a visitorTag node (its connections carry no params)');
    });

    it('given weights and action numbers out of range, when checked, then each is rejected', () => {
      expectProblems(
        funnelWith((_, __, connections) => {
          connections[C('1')].connectionRotatorParams = { weight: 1.01 };
          connections[C('2')].connectionRotatorParams = { weight: '0.5' };
          connections[C('4')].connectionPageParams = { onActionNumber: 0 };
          connections[C('5')].connectionPageParams = { onActionNumber: 1.5 };
        }),
        `connections[${C('1')}].connectionRotatorParams.weight:range`,
        `connections[${C('2')}].connectionRotatorParams.weight:invalidType`,
        `connections[${C('4')}].connectionPageParams.onActionNumber:range`,
        `connections[${C('5')}].connectionPageParams.onActionNumber:invalidType`,
      );
      expectProblems(
        funnelWith((_, __, connections) => (connections[C('4')].connectionPageParams = { onActionNumber: 65 })),
        `connections[${C('4')}].connectionPageParams.onActionNumber:range`,
      );
    });

    it('given isConversion on a connection from a lander group, when checked, then it is rejected; from an offer group it is a boolean', () => {
      expectProblems(
        funnelWith((_, __, connections) => {
          connections[C('4')].connectionPageParams = { onActionNumber: 1, isConversion: false };
          connections[C('5')].connectionPageParams = { onActionNumber: 1, isConversion: 'yes' };
        }),
        `connections[${C('4')}].connectionPageParams.isConversion:notAllowed`,
        `connections[${C('5')}].connectionPageParams.isConversion:invalidType`,
      );
    });

    it('given route keys outside ^[a-z0-9_]{1,64}$, when checked, then each is rejected', () => {
      expectProblems(
        funnelWith((_, __, connections) => {
          connections[C('6')].connectionLogicParams = { onRouteKeys: ['Mobile', 'a'.repeat(65), 'ok'] };
          connections[C('10')].connectionMiddlewareParams = { onRouteId: 'to-crm' };
          connections[C('12')].connectionLogicParams = { onRouteKeys: [] };
        }),
        `connections[${C('6')}].connectionLogicParams.onRouteKeys[0]:routeKey`,
        `connections[${C('6')}].connectionLogicParams.onRouteKeys[1]:routeKey`,
        `connections[${C('10')}].connectionMiddlewareParams.onRouteId:routeKey`,
        `connections[${C('12')}].connectionLogicParams.onRouteKeys:range`,
      );
    });

    it('given a route key, middleware route or action number two connections of a node take, when checked, then the second is rejected', () => {
      const problems = checkFunnelGraph(
        funnelWith((_, __, connections) => {
          connections[C('7')].connectionLogicParams = { onRouteKeys: ['default', 'mobile'] };
          connections[C('8')].connectionLogicParams = { onRouteKeys: ['buyer', 'buyer'] };
          connections.push(
            { idConnection: id('c13'), idSourceNode: id('nEnrich'), idTargetNode: id('nExit'), connectionMiddlewareParams: { onRouteId: 'default' } },
            { idConnection: id('c14'), idSourceNode: id('nLanders'), idTargetNode: id('nExit'), connectionPageParams: { onActionNumber: 1 } },
          );
        }),
      );
      expect(codesOf(problems)).toEqual([
        `connections[${C('7')}].connectionLogicParams.onRouteKeys[1]:alreadyTaken`,
        `connections[${C('8')}].connectionLogicParams.onRouteKeys[1]:alreadyTaken`,
        'connections[12].connectionMiddlewareParams.onRouteId:alreadyTaken',
        'connections[13].connectionPageParams.onActionNumber:alreadyTaken',
      ]);
      expect(problems[0].message).toContain(`route key mobile is already taken by connections[${C('6')}], from the same node`);
      expect(problems[1].message).toContain('route key buyer is already in the list');
    });

    it('given a second connection out of a visitor-tag or webhook node, or any out of an external URL, when checked, then it is rejected', () => {
      const problems = checkFunnelGraph(
        funnelWith((_, __, connections) => {
          connections.push(
            { idConnection: id('c13'), idSourceNode: id('nTag'), idTargetNode: id('nExit') },
            { idConnection: id('c14'), idSourceNode: id('nNotify'), idTargetNode: id('nExit') },
            { idConnection: id('c15'), idSourceNode: id('nExit'), idTargetNode: id('nOffers') },
          );
        }),
      );
      expect(codesOf(problems)).toEqual([
        'connections[12].idSourceNode:tooManyOutgoing',
        'connections[13].idSourceNode:tooManyOutgoing',
        'connections[14].idSourceNode:tooManyOutgoing',
      ]);
      expect(problems[0].message).toContain('a visitorTag node (nodes[7]) has at most 1 outgoing connection');
      expect(problems[2].message).toContain('an externalUrl node (nodes[5]) has no outgoing connection');
    });
  });

  describe('overrides', () => {
    it('given cost overrides keyed by non-ids or with costs that are not decimals, when checked, then they are rejected', () => {
      expectProblems(
        funnelWith((funnel) => (funnel.incomingTrafficCostOverrides = { notAnId: '1', [IDS.source]: '-1', [id('other')]: 2 as unknown as string })),
        'incomingTrafficCostOverrides:isAssetId',
        `incomingTrafficCostOverrides.${IDS.source}:invalidType`,
        `incomingTrafficCostOverrides.${id('other')}:invalidType`,
      );
    });

    it('given two postback overrides for one traffic source, when checked, then the second is rejected', () => {
      expectProblems(
        funnelWith((funnel) => funnel.postbackOverrides!.push({ ...funnel.postbackOverrides![0] })),
        'postbackOverrides[1].idTrafficSource:unique',
      );
    });
  });

  it('given more than 20 problems, when checked, then the first 20 are listed and the rest counted', () => {
    const funnel = funnelWith((_, nodes) => nodes.forEach((node) => (node.posX = 2)));
    for (let i = 0; i < 15; i++) funnel.connections.push({ idConnection: 'bad', idSourceNode: id('nRoot'), idTargetNode: id('nSplit') } as never);
    // 11 positions off the canvas, and 15 connections each with a bad id and no weight: 41 problems.
    const problems = checkFunnelGraph(funnel);
    expect(problems).toHaveLength(21);
    expect(problems[20]).toEqual({ field: '', code: 'moreProblems', message: 'and 21 more problems' });
  });
});
