// Logic nodes: the logic script, compiled once per funnel, evaluated as the logic-script evaluate
// route does, with the node's connection keys as the accepted keys: a returned key no connection
// takes, an invalid script or a failure routes to `default`.
import type { FunnelNode } from '@funnel/assets-domain';
import * as logicScript from '@funnel/logic-script';
import type { CompiledScript } from '@funnel/logic-script';
import { FALLBACK_ROUTE_KEY } from '@funnel/visitor-context';
import type { CompileContext, CompiledEdge, GraphNode, NodeFamily, NodeStep } from '../compile/graph';
import { text } from '../compile/records';
import type { Walk } from '../walk/walk';
import { type KeyedEdges, edgeForKey, keyedEdges, noRouteReason } from './route-keys';

// Bound once: compiled imports read another module's exports through getters, on every call otherwise.
const { compile, evaluate } = logicScript;

interface LogicData {
  readonly idLogicScript: string;
  /** The compiled script, or why there is none (the node then answers `default`). */
  readonly script: CompiledScript | { reasonCode: string; reason: string };
  readonly edges: KeyedEdges;
}

/** Scripts compiled once per compileFunnel, shared by the nodes that run the same script. */
const compiled = new WeakMap<CompileContext, Map<string, LogicData['script']>>();

function scriptOf(idLogicScript: string, context: CompileContext): LogicData['script'] {
  let scripts = compiled.get(context);
  if (scripts === undefined) compiled.set(context, (scripts = new Map()));
  const known = scripts.get(idLogicScript);
  if (known !== undefined) return known;
  const record = context.index.get('logicscript', idLogicScript);
  let script: LogicData['script'];
  if (record === undefined) {
    script = { reasonCode: 'MISSING_SCRIPT', reason: `logic script ${idLogicScript} is missing, so the node answers "${FALLBACK_ROUTE_KEY}"` };
  } else {
    const result = compile(text(record, 'code'));
    if (result.ok) script = result.script;
    else {
      const first = result.result.errors[0];
      const where = first ? `line ${first.line}, column ${first.column}: ${first.message}` : 'unknown error';
      script = { reasonCode: 'INVALID_SCRIPT', reason: `the script is invalid (${where}), so the node answers "${FALLBACK_ROUTE_KEY}"` };
    }
  }
  scripts.set(idLogicScript, script);
  return script;
}

export const logicFamily: NodeFamily<LogicData> = {
  serverSide: true,
  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): LogicData {
    const idLogicScript = ('nodeLogicParams' in node && node.nodeLogicParams?.idLogicScript) || '';
    const script = scriptOf(idLogicScript, context);
    if ('reasonCode' in script) context.warn(script.reasonCode === 'MISSING_SCRIPT' ? 'missingAsset' : 'invalidScript', script.reason);
    return { idLogicScript, script, edges: keyedEdges(out) };
  },

  run(node: GraphNode<LogicData>, walk: Walk): NodeStep {
    const { data } = node;
    const { script } = data;
    let routeKey = FALLBACK_ROUTE_KEY;
    let fallback = true;
    let reasonCode: string;
    let reason: string;
    if ('reasonCode' in script) {
      reasonCode = script.reasonCode;
      reason = script.reason;
    } else {
      const session = walk.session;
      const result = evaluate(script, {
        visitor: walk.input.visitor.attributes,
        trackingFields: walk.trackingFieldsByName(),
        dataBuffer: session.urlBuffer,
        visitorTags: session.tags,
        now: walk.now,
        routeKeys: data.edges.keys,
      });
      ({ routeKey, fallback, reasonCode, reason } = result);
    }
    const edge = edgeForKey(data.edges, routeKey);
    walk.record(node, { kind: 'logic', idLogicScript: data.idLogicScript, routeKey, fallback, reasonCode, reason, idConnection: edge?.idConnection ?? null });
    return edge === undefined ? walk.deadEnd(node.idNode, 'noDefaultRoute', noRouteReason(node, routeKey)) : edge.idTargetNode;
  },
};
