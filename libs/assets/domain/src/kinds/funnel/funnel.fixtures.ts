// Funnels for the funnel specs: one hand-written valid funnel that uses every node type, and
// arbitrary valid funnels drawn with fast-check. Test code only (not exported from the library).
import { FUNNEL_NODE_TYPES, ID_ALPHABET } from '@funnel/contracts';
import fc from 'fast-check';
import type { FunnelWarningContext } from './funnel-warnings';
import type { FunnelConnection, FunnelNode, FunnelNodeType, FunnelRecord } from './funnel-types';

/** A valid asset id made readable: `id('nRoot')` is `nRootZZZZZZZ` (names never end in Z, so no two meet). */
export const id = (name: string) => name.padEnd(12, 'Z');

export const IDS = {
  funnel: id('funnel'),
  group: id('group'),
  landers: id('pgLanders'),
  offers: id('pgOffers'),
  condition: id('condMobile'),
  script: id('script'),
  tag: id('tagBuyer'),
  middleware: id('middleware'),
  webhook: id('webhook'),
  ai: id('aiSetting'),
  source: id('trafficSrc'),
};

const node = (name: string, nodeType: FunnelNodeType, params: Record<string, unknown> = {}): FunnelNode =>
  ({ idNode: id(`n${name}`), nodeName: name, nodeType, posX: 0.5, posY: 0.25, ...params }) as FunnelNode;

const connection = (name: string, from: string, to: string, params: Record<string, unknown> = {}): FunnelConnection => ({
  idConnection: id(`c${name}`),
  idSourceNode: id(`n${from}`),
  idTargetNode: id(`n${to}`),
  ...params,
});

/**
 * A valid funnel with one node of each type and no warnings (given warningContext()):
 * Root -> Split (rotator) -> Landers | Device (condition); Landers -action 1-> Offers -conversion-> Exit (url);
 * Device: mobile -> Script (logic), default -> Landers; Script -> Tag -> Enrich (middleware) -> Notify (webhook)
 * -> Ai -> Offers.
 */
export function validFunnel(): FunnelRecord {
  return {
    idFunnel: IDS.funnel,
    idFunnelGroup: IDS.group,
    funnelName: 'Spring sale',
    funnelType: 'visual',
    canvasWidth: 1000,
    canvasHeight: 800,
    incomingTrafficCostOverrides: { [IDS.source]: '0.25' },
    postbackOverrides: [{ idTrafficSource: IDS.source, postbackType: 'postbackUrl', postbackCode: 'https://ts.example.com/pb?c={clickid}' }],
    status: 'active',
    nodes: [
      node('Root', 'root'),
      node('Split', 'rotator', { nodeRotatorParams: { rotatorType: 'random' } }),
      node('Landers', 'landerGroup', {
        nodePageGroupParams: { idPageGroup: IDS.landers, accumulateUrlParams: true, additionalTokens: [{ key: 'lp', value: 'a' }] },
      }),
      node('Device', 'condition', { nodeConditionParams: { idCondition: IDS.condition } }),
      node('Offers', 'offerGroup', { nodePageGroupParams: { idPageGroup: IDS.offers } }),
      node('Exit', 'externalUrl', { nodeExternalUrlParams: { url: 'https://example.com/thanks?c={clickid}' } }),
      node('Script', 'logic', { nodeLogicParams: { idLogicScript: IDS.script } }),
      node('Tag', 'visitorTag', { nodeVisitorTagParams: { idTags: [IDS.tag] } }),
      node('Enrich', 'middleware', {
        nodeMiddlewareRefParams: {
          idMiddlewareConfig: IDS.middleware,
          destinationOverrides: { headers: { 'X-Funnel': 'spring' }, basicAuth: { username: 'bob', password: '********' }, hmacSecret: null },
        },
      }),
      node('Notify', 'webhook', { nodeWebhookParams: { idWebhookConfig: IDS.webhook } }),
      node('Ai', 'ai', { nodeAiParams: { idAINodeSetting: IDS.ai } }),
    ],
    connections: [
      connection('1', 'Root', 'Split', { connectionRotatorParams: { weight: 1 } }),
      connection('2', 'Split', 'Landers', { connectionRotatorParams: { weight: 0.5 } }),
      connection('3', 'Split', 'Device', { connectionRotatorParams: { weight: 0.5 } }),
      connection('4', 'Landers', 'Offers', { connectionPageParams: { onActionNumber: 1 } }),
      connection('5', 'Offers', 'Exit', { connectionPageParams: { onActionNumber: 1, isConversion: true } }),
      connection('6', 'Device', 'Script', { connectionLogicParams: { onRouteKeys: ['mobile'] } }),
      connection('7', 'Device', 'Landers', { connectionLogicParams: { onRouteKeys: ['default'] } }),
      connection('8', 'Script', 'Tag', { connectionLogicParams: { onRouteKeys: ['default', 'buyer'] } }),
      connection('9', 'Tag', 'Enrich'),
      connection('10', 'Enrich', 'Notify', { connectionMiddlewareParams: { onRouteId: 'default' } }),
      connection('11', 'Notify', 'Ai'),
      connection('12', 'Ai', 'Offers', { connectionLogicParams: { onRouteKeys: ['default'] } }),
    ],
  };
}

/** What the valid funnel's assets hold: every route connected, every page group with pages. */
export function warningContext(overrides: Partial<FunnelWarningContext> = {}): FunnelWarningContext {
  return {
    conditionRouteKeys: new Map([[IDS.condition, ['mobile', 'default']]]),
    logicScriptRouteKeys: new Map([[IDS.script, ['buyer', 'default']]]),
    pageGroupPageCounts: new Map([
      [IDS.landers, 2],
      [IDS.offers, 1],
    ]),
    archived: new Map(),
    ...overrides,
  };
}

// ---- arbitrary valid funnels -------------------------------------------------------------------

/** Asset ids of one role: a fixed first character, so ids of different roles never meet. */
export function idOf(role: string): fc.Arbitrary<string> {
  const found = ID_ARBITRARIES.get(role) ?? fc.string({ unit: fc.constantFrom(...ID_ALPHABET), minLength: 11, maxLength: 11 }).map((rest) => role + rest);
  ID_ARBITRARIES.set(role, found);
  return found;
}
// Arbitraries are built once: building one (a regex-based one above all) costs more than drawing from it.
const routeKey = fc.stringMatching(/^[a-z0-9_]{1,8}$/);
const lowerWord = fc.stringMatching(/^[a-z]{0,8}$/);
const rotatorType = fc.constantFrom('random', 'session');
const additionalTokens = fc.uniqueArray(fc.record({ key: fc.stringMatching(/^[a-z_]{1,6}$/), value: fc.string({ maxLength: 8 }) }), {
  maxLength: 3,
  selector: (token) => token.key,
});
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
const weights = fc.array(fraction, { maxLength: 3 });
const actionNumbers = fc.uniqueArray(fc.integer({ min: 1, max: 64 }), { maxLength: 3 });
const middlewareRoutes = fc.uniqueArray(routeKey, { maxLength: 3 });
const logicRoutes = fc.uniqueArray(routeKey, { maxLength: 6 });
const nodeName = fc.string({ minLength: 1, maxLength: 12 });
const nonRootType = fc.constantFrom<FunnelNodeType>(...FUNNEL_NODE_TYPES.filter((type) => type !== 'root'));
const ID_ARBITRARIES = new Map<string, fc.Arbitrary<string>>();

/** Draws the params object of a node of the type, naming assets from small pools (so nodes share some). */
function drawNodeParams(g: fc.GeneratorValue, type: FunnelNodeType, pool: (role: string) => string): Record<string, unknown> {
  switch (type) {
    case 'root':
      return g(fc.boolean) ? { nodeRotatorParams: { rotatorType: g(() => rotatorType) } } : {};
    case 'rotator':
      return { nodeRotatorParams: { rotatorType: g(() => rotatorType) } };
    case 'landerGroup':
    case 'offerGroup':
      return {
        nodePageGroupParams: {
          idPageGroup: pool(type === 'landerGroup' ? 'P' : 'Q'),
          accumulateUrlParams: g(fc.boolean),
          additionalTokens: g(() => additionalTokens),
        },
      };
    case 'externalUrl':
      return { nodeExternalUrlParams: { url: `https://example.com/${g(() => lowerWord)}?c={clickid}` } };
    case 'condition':
      return { nodeConditionParams: { idCondition: pool('K') } };
    case 'logic':
      return { nodeLogicParams: { idLogicScript: pool('L') } };
    case 'visitorTag':
      return { nodeVisitorTagParams: { idTags: [...new Set(Array.from({ length: g(fc.integer, { min: 1, max: 3 }) }, () => pool('T')))] } };
    case 'middleware':
      return {
        nodeMiddlewareRefParams: {
          idMiddlewareConfig: pool('M'),
          ...(g(fc.boolean) ? { destinationOverrides: { headers: { 'X-Node': g(() => lowerWord) }, hmacSecret: '********' } } : {}),
        },
      };
    case 'webhook':
      return { nodeWebhookParams: { idWebhookConfig: pool('W') } };
    case 'ai':
      return { nodeAiParams: { idAINodeSetting: pool('I') } };
  }
}

/** Draws the params of each connection out of a node of the type (how many connections, and what each takes). */
function drawOutgoing(g: fc.GeneratorValue, type: FunnelNodeType): Record<string, unknown>[] {
  switch (type) {
    case 'externalUrl':
      return [];
    case 'visitorTag':
    case 'webhook':
      return g(fc.boolean) ? [{}] : [];
    case 'root':
    case 'rotator':
      return g(() => weights).map((weight) => ({ connectionRotatorParams: { weight } }));
    case 'landerGroup':
    case 'offerGroup':
      return g(() => actionNumbers).map((onActionNumber) => ({
        connectionPageParams: type === 'offerGroup' ? { onActionNumber, isConversion: g(fc.boolean) } : { onActionNumber },
      }));
    case 'middleware':
      return g(() => middlewareRoutes).map((onRouteId) => ({ connectionMiddlewareParams: { onRouteId } }));
    default: {
      // condition, logic, ai: disjoint sets of route keys, one set per connection.
      const keys = g(() => logicRoutes);
      const sets: string[][] = [];
      for (const key of keys) {
        if (sets.length === 0 || g(fc.boolean)) sets.push([key]);
        else sets[sets.length - 1].push(key);
      }
      return sets.map((onRouteKeys) => ({ connectionLogicParams: { onRouteKeys } }));
    }
  }
}

/**
 * A valid funnel: 0..maxNodes nodes (the first is the root), each with params of its type; the
 * connections each node type allows, into any node but the root and itself. Node ids start with N,
 * connection ids with C, the funnel's with F; referenced assets with a letter of their kind.
 */
export function drawFunnel(g: fc.GeneratorValue, maxNodes = 20): FunnelRecord {
  const count = g(fc.integer, { min: 0, max: maxNodes });
  const nodeIds: string[] = g(() => fc.uniqueArray(idOf('N'), { minLength: count, maxLength: count }));
  const pools = new Map<string, string[]>();
  const pool = (role: string) => {
    const ids = pools.get(role) ?? g(() => fc.uniqueArray(idOf(role), { minLength: 1, maxLength: 3 }));
    pools.set(role, ids);
    return ids[g(fc.integer, { min: 0, max: ids.length - 1 })];
  };
  const nodes = nodeIds.map((idNode, i) => {
    const nodeType: FunnelNodeType = i === 0 ? 'root' : g(() => nonRootType);
    return {
      idNode,
      nodeName: g(() => nodeName),
      nodeType,
      posX: g(() => fraction),
      posY: g(() => fraction),
      ...drawNodeParams(g, nodeType, pool),
    } as FunnelNode;
  });
  const edges = nodes.flatMap((source, i) => {
    const targets = nodes.map((_, t) => t).filter((t) => t !== 0 && t !== i);
    if (targets.length === 0) return [];
    return drawOutgoing(g, source.nodeType).map((params) => ({ source: i, target: g(fc.constantFrom, ...targets), params }));
  });
  const connectionIds: string[] = g(() => fc.uniqueArray(idOf('C'), { minLength: edges.length, maxLength: edges.length }));
  const connections = edges.map(({ source, target, params }, j): FunnelConnection => ({
    idConnection: connectionIds[j],
    idSourceNode: nodeIds[source],
    idTargetNode: nodeIds[target],
    ...params,
  }));
  const sources: string[] = g(() => fc.uniqueArray(idOf('S'), { maxLength: 2 }));
  return {
    idFunnel: g(idOf, 'F'),
    idFunnelGroup: g(idOf, 'G'),
    funnelName: 'drawn',
    incomingTrafficCostOverrides: Object.fromEntries(sources.map((source) => [source, g(fc.constantFrom, '0', '0.5', '12.123456')])),
    postbackOverrides: sources.map((idTrafficSource) => ({ idTrafficSource, postbackType: 'none', postbackCode: '' })),
    nodes,
    connections,
  };
}
