// The two kinds of step: an entrance (a new arrival by an entrance link, at the root or at a node) and
// action n from the page the visitor is on.
import type { RoutingSession, RoutingStep, WalkInput, WalkOutcome } from '../model';
import type { CompiledGraph } from '../compile/graph';
import { entranceCost } from './entrance-cost';
import { joinBuffer, requestParams } from './request-params';
import { runFrom } from './run';
import { Walk } from './walk';

const MAX_ACTION = 64;

type Entrance = Extract<RoutingStep, { entrance: unknown }>['entrance'];

export function startEntrance(graph: CompiledGraph, input: WalkInput, entrance: Entrance): WalkOutcome {
  const { idTrafficSource } = entrance;
  const source = graph.trafficSources.get(idTrafficSource);
  const params = requestParams(entrance.url, input.visitor.params);
  const trackingFields: Record<string, string> = {};
  for (const [slot, name] of source?.fields ?? []) if (Object.prototype.hasOwnProperty.call(params, name)) trackingFields[slot] = params[name];
  const cost = entranceCost(graph, source, idTrafficSource, entrance.cost);
  const previous = input.session;
  const session: RoutingSession =
    previous === null
      ? {
          visitorId: input.ids(),
          startedAt: input.visitor.time,
          idFunnel: graph.idFunnel,
          idTrafficSource,
          currentNode: '',
          lastHitId: '',
          currentPage: '',
          trackingFields,
          cost: cost.cost,
          tags: [],
          sticky: {},
          urlBuffer: params,
        }
      : {
          ...previous,
          idFunnel: graph.idFunnel,
          idTrafficSource,
          currentNode: '',
          currentPage: '',
          trackingFields,
          cost: cost.cost,
          urlBuffer: joinBuffer(previous.urlBuffer, params),
        };
  const decision = {
    kind: 'entrance' as const,
    idTrafficSource,
    cost: cost.cost,
    costFrom: cost.costFrom,
    incomingCostModifier: cost.incomingCostModifier,
  };
  const walk = new Walk(graph, input, session, source, { isEntrance: true, action: 0, cost: cost.cost, decision }, '', false);
  if (source === undefined) {
    walk.warn(
      'missingAsset',
      `traffic source ${idTrafficSource} is not among the funnel's assets: no tracking fields are kept and its cost settings do not apply`,
    );
  }
  if (cost.invalidLinkCost !== null) walk.warn('invalidCost', `the link's cost ${JSON.stringify(cost.invalidLinkCost)} is not a decimal >= 0; it was ignored`);
  const start = entrance.idNode ?? graph.idRootNode;
  if (start === '') {
    walk.deadEnd('', 'deadEnd', `funnel ${graph.idFunnel} has no root node`);
    return { done: true, result: walk.finish() };
  }
  return runFrom(walk, start);
}

export function startAction(graph: CompiledGraph, input: WalkInput, action: number): WalkOutcome {
  const previous = input.session;
  const params = requestParams(undefined, input.visitor.params);
  if (previous === null) {
    const empty: RoutingSession = {
      visitorId: '',
      startedAt: input.visitor.time,
      idFunnel: graph.idFunnel,
      idTrafficSource: '',
      currentNode: '',
      lastHitId: '',
      currentPage: '',
      trackingFields: {},
      cost: '0',
      tags: [],
      sticky: {},
      urlBuffer: params,
    };
    const walk = new Walk(graph, input, empty, undefined, { isEntrance: false, action, cost: '0', decision: null }, '', true);
    walk.deadEnd('', 'noSession', `action ${action} came from a visitor without a session (no entrance before it, or the session expired)`);
    return { done: true, result: walk.finish() };
  }
  const session: RoutingSession = { ...previous, urlBuffer: joinBuffer(previous.urlBuffer, params) };
  const walk = new Walk(
    graph,
    input,
    session,
    graph.trafficSources.get(session.idTrafficSource),
    { isEntrance: false, action, cost: '0', decision: null },
    previous.lastHitId,
    true,
  );
  const node = previous.idFunnel === graph.idFunnel ? graph.nodes.get(previous.currentNode) : undefined;
  if (node === undefined || node.family.action === undefined) {
    walk.deadEnd(
      previous.currentNode,
      'notOnPage',
      `action ${action}: the visitor is not on a lander or offer of funnel ${graph.idFunnel} (current node ${JSON.stringify(previous.currentNode)})`,
    );
    return { done: true, result: walk.finish() };
  }
  const target = Number.isInteger(action) && action >= 1 && action <= MAX_ACTION ? node.family.action(node, action, previous.currentPage) : undefined;
  walk.record(
    node,
    { kind: 'action', action, idConnection: target?.edge.idConnection ?? null, isConversion: target?.conversionPayout != null },
    previous.lastHitId,
  );
  if (target === undefined) {
    walk.deadEnd(node.idNode, 'unknownAction', `node ${node.idNode} (${node.nodeName}) has no connection for action ${action}`);
    return { done: true, result: walk.finish() };
  }
  if (target.conversionPayout !== null) {
    walk.effects.push({
      type: 'conversion',
      idNode: node.idNode,
      hitId: previous.lastHitId,
      idPage: previous.currentPage,
      payout: target.conversionPayout,
      action,
    });
  }
  return runFrom(walk, target.edge.idTargetNode);
}
