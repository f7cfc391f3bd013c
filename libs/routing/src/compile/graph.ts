// The compiled form of a funnel: nodes indexed by id, each with its outgoing connections and what its
// node family precomputed (shares, templates, compiled scripts), plus the traffic sources.
import type { FunnelConnection, FunnelNode, FunnelNodeType } from '@funnel/assets-domain';
import type { CompiledFunnel, FunnelAssets, MiddlewareAnswer, MiddlewareCall, RoutingWarning } from '../model';
import type { Walk } from '../walk/walk';
import type { AssetIndex } from './asset-index';
import type { OfferQuery } from '../url';

export interface CompiledEdge {
  readonly idConnection: string;
  readonly idTargetNode: string;
  readonly connection: FunnelConnection;
}

/** What a node does next: go on to a node (its id), stop (the walk's destination is set), or wait for a middleware answer. */
export type NodeStep = string | typeof END | Pause;

export const END: unique symbol = Symbol('end of walk');

export interface Pause {
  readonly call: MiddlewareCall;
  resume(answer: MiddlewareAnswer): NodeStep;
}

/** Where an action from a page node leads. */
export interface ActionTarget {
  readonly edge: CompiledEdge;
  /** The offer's payout (decimal text) when the action converts, else null. */
  readonly conversionPayout: string | null;
}

/** One node type's behaviour: what it precomputes and what it does when a visitor reaches it. */
export interface NodeFamily<D = unknown> {
  /** Resolved in the same request (counted against MAX_SERVER_STEPS); false: the walk ends at this node (a page or URL). */
  readonly serverSide: boolean;
  compile(node: FunnelNode, out: readonly CompiledEdge[], context: CompileContext): D;
  run(node: GraphNode<D>, walk: Walk): NodeStep;
  /** Page nodes only: the connection of action n, taken from the page shown. */
  action?(node: GraphNode<D>, action: number, idPage: string): ActionTarget | undefined;
}

export interface GraphNode<D = unknown> {
  readonly idNode: string;
  readonly nodeName: string;
  readonly nodeType: FunnelNodeType;
  readonly node: FunnelNode;
  readonly out: readonly CompiledEdge[];
  readonly family: NodeFamily<D>;
  readonly data: D;
  /** The compiled funnel's warnings about this node (shown with the walks that visit it). */
  readonly warnings: RoutingWarning[];
}

/** A traffic source as entrances read it. */
export interface CompiledTrafficSource {
  readonly idTrafficSource: string;
  readonly name: string;
  /** Active tracking fields: [slot, URL parameter name]. */
  readonly fields: readonly (readonly [string, string])[];
  /** URL parameter name -> slot, for `{trackingField.<name>}` and for conditions and scripts. */
  readonly slotsByName: ReadonlyMap<string, string>;
  readonly defaultCost: string;
  /** Percent applied to every entrance cost (100: as is). */
  readonly incomingCostModifier: number;
}

/** What node families read while compiling. */
export interface CompileContext {
  readonly assets: FunnelAssets;
  readonly index: AssetIndex;
  /** An offer source's query params, compiled once per source (null: none or unknown source). */
  offerQuery(idOfferSource: string): OfferQuery | null;
  /** Adds a warning about the node being compiled. */
  warn(code: string, message: string): void;
}

/** The CompiledFunnel compileFunnel answers; the walk reads its internals. */
export class CompiledGraph implements CompiledFunnel {
  constructor(
    readonly idFunnel: string,
    readonly funnelName: string,
    readonly idFunnelGroup: string,
    readonly idRootNode: string,
    readonly warnings: readonly RoutingWarning[],
    readonly assets: FunnelAssets,
    /** @internal */ readonly nodes: ReadonlyMap<string, GraphNode>,
    /** @internal */ readonly trafficSources: ReadonlyMap<string, CompiledTrafficSource>,
    /** @internal */ readonly funnelGroupDefaultCost: string,
  ) {}

  /** @internal Entrance costs without a link cost, by traffic source (filled as entrances come). */
  readonly entranceCosts = new Map<string, unknown>();
}
