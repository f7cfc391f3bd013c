// The funnel record: a graph of nodes joined by connections. A node's params object is named after
// its type (`node<Kind>Params`), a connection's after its source node's type (`connection<Kind>Params`),
// as in this field's established API. These types describe a record that passed checkFunnelGraph.

import type { FunnelNodeType, RotatorType } from '@funnel/contracts';

// The rule tables live in @funnel/contracts, where the API document's node and connection schemas are built from them.
export {
  CONNECTION_PARAMS_FIELDS,
  FUNNEL_LIMITS,
  FUNNEL_NODE_TYPES,
  type FunnelNodeType,
  NODE_PARAMS,
  NODE_PARAMS_FIELDS,
  OUTGOING,
  ROTATOR_TYPES,
  type RotatorType,
} from '@funnel/contracts';

export interface NodeRotatorParams {
  rotatorType: RotatorType;
}

/** A token a page-group node adds to the URLs of its pages. */
export interface AdditionalToken {
  key: string;
  value: string;
}

export interface NodePageGroupParams {
  /** A page group whose pageType is the node's (`landerGroup`: lander, `offerGroup`: offer). */
  idPageGroup: string;
  /** Whether the visitor's URL parameters are passed on to the pages. */
  accumulateUrlParams?: boolean;
  additionalTokens?: AdditionalToken[];
}

export interface NodeExternalUrlParams {
  /** Absolute http(s) URL; `{tokens}` in its query only. */
  url: string;
}

export interface NodeConditionParams {
  idCondition: string;
}

export interface NodeLogicParams {
  idLogicScript: string;
}

export interface NodeVisitorTagParams {
  idTags: string[];
}

/**
 * What a middleware node changes of its config's destination. `basicAuth.password` and `hmacSecret`
 * are write-only like the config's: `********` keeps the stored value, `""` or null removes it.
 */
export interface DestinationOverrides {
  headers?: Record<string, string>;
  basicAuth?: { username: string; password?: string | null } | null;
  hmacSecret?: string | null;
}

export interface NodeMiddlewareRefParams {
  idMiddlewareConfig: string;
  destinationOverrides?: DestinationOverrides;
}

export interface NodeWebhookParams {
  idWebhookConfig: string;
}

export interface NodeAiParams {
  idAINodeSetting: string;
}

interface NodeBase {
  /** Asset id format; unique in the funnel and never equal to an asset id the funnel references. */
  idNode: string;
  nodeName: string;
  /** Position on the canvas, as a fraction of its width and height. */
  posX: number;
  posY: number;
}

export interface RootNode extends NodeBase {
  nodeType: 'root';
  nodeRotatorParams?: NodeRotatorParams;
}
export interface RotatorNode extends NodeBase {
  nodeType: 'rotator';
  nodeRotatorParams: NodeRotatorParams;
}
export interface PageGroupNode extends NodeBase {
  nodeType: 'landerGroup' | 'offerGroup';
  nodePageGroupParams: NodePageGroupParams;
}
export interface ExternalUrlNode extends NodeBase {
  nodeType: 'externalUrl';
  nodeExternalUrlParams: NodeExternalUrlParams;
}
export interface ConditionNode extends NodeBase {
  nodeType: 'condition';
  nodeConditionParams: NodeConditionParams;
}
export interface LogicNode extends NodeBase {
  nodeType: 'logic';
  nodeLogicParams: NodeLogicParams;
}
export interface VisitorTagNode extends NodeBase {
  nodeType: 'visitorTag';
  nodeVisitorTagParams: NodeVisitorTagParams;
}
export interface MiddlewareNode extends NodeBase {
  nodeType: 'middleware';
  nodeMiddlewareRefParams: NodeMiddlewareRefParams;
}
export interface WebhookNode extends NodeBase {
  nodeType: 'webhook';
  nodeWebhookParams: NodeWebhookParams;
}
export interface AiNode extends NodeBase {
  nodeType: 'ai';
  nodeAiParams: NodeAiParams;
}

export type FunnelNode =
  RootNode | RotatorNode | PageGroupNode | ExternalUrlNode | ConditionNode | LogicNode | VisitorTagNode | MiddlewareNode | WebhookNode | AiNode;

/** Params of a connection from a root or rotator: the share of visitors it takes. */
export interface ConnectionRotatorParams {
  /** 0..1; a node's weights should sum to 1 (a warning otherwise). */
  weight: number;
}

/** Params of a connection from a lander or offer group: the page action that follows it. */
export interface ConnectionPageParams {
  /** 1..64; one connection per action number of a node. */
  onActionNumber: number;
  /** Offer groups only: the action is a conversion. */
  isConversion?: boolean;
}

/** Params of a connection from a condition, logic or AI node: the route keys it takes. */
export interface ConnectionLogicParams {
  /** Route keys (`^[a-z0-9_]{1,64}$`); `default` is the fallback route. */
  onRouteKeys: string[];
}

/** Params of a connection from a middleware node: the middleware route it takes. */
export interface ConnectionMiddlewareParams {
  onRouteId: string;
}

/**
 * A connection: the params object of its source node's type (none from visitorTag and webhook
 * nodes, which have one outgoing connection; an externalUrl node has none).
 */
export interface FunnelConnection {
  idConnection: string;
  idSourceNode: string;
  idTargetNode: string;
  connectionRotatorParams?: ConnectionRotatorParams;
  connectionPageParams?: ConnectionPageParams;
  connectionLogicParams?: ConnectionLogicParams;
  connectionMiddlewareParams?: ConnectionMiddlewareParams;
}

/** A traffic source's postback for this funnel's conversions, in place of the source's own. */
export interface PostbackOverride {
  idTrafficSource: string;
  postbackType: string;
  postbackCode: string;
}

/** A funnel record (a type, not an interface, so that it is also a Record<string, unknown>). */
export type FunnelRecord = {
  idFunnel: string;
  idFunnelGroup: string;
  funnelName: string;
  funnelType?: 'visual' | 'flow';
  canvasWidth?: number;
  canvasHeight?: number;
  trackingUrlParams?: Record<string, string>;
  /** Traffic source id to cost (decimal text); `{}` or absent: the default costs. */
  incomingTrafficCostOverrides?: Record<string, string>;
  postbackOverrides?: PostbackOverride[];
  /** Absent: the account default (not the same as false). */
  ipAnonymizer?: boolean;
  defaultCost?: string;
  nodes: FunnelNode[];
  connections: FunnelConnection[];
  status?: string;
  owner?: string;
  meta?: Record<string, unknown>;
};

/** The pageType a page-group node's group must have. */
export const PAGE_TYPE_OF_NODE: Readonly<Partial<Record<FunnelNodeType, 'lander' | 'offer'>>> = { landerGroup: 'lander', offerGroup: 'offer' };

export const FUNNEL_PROBLEM_CODES = Object.freeze({
  /** A field that must be there is missing. */
  REQUIRED: 'required',
  /** A field of the wrong JSON type. */
  INVALID_TYPE: 'invalidType',
  /** Not an asset id (12 characters of base62). */
  INVALID_ID: 'isAssetId',
  /** An id already used in the funnel (by a node, a connection or the funnel itself). */
  DUPLICATE_ID: 'unique',
  /** A node id equal to an asset id the funnel references. */
  ID_IS_REFERENCE: 'idIsReference',
  /** A value outside its allowed set. */
  NOT_ALLOWED_VALUE: 'isIn',
  /** A number or length outside its range, or a list with too many or too few entries. */
  OUT_OF_RANGE: 'range',
  /** A params object (or field) that does not fit the node's type or the connection's source type. */
  NOT_ALLOWED: 'notAllowed',
  /** A connection end that names no node of the funnel. */
  NOT_A_NODE: 'notANode',
  /** A connection from a node to itself. */
  SELF_CONNECTION: 'selfConnection',
  /** A connection into the root (the root is where visitors enter). */
  INTO_ROOT: 'intoRoot',
  /** More outgoing connections than the source node's type allows. */
  TOO_MANY_OUTGOING: 'tooManyOutgoing',
  /** A route key outside ROUTE_KEY_PATTERN. */
  INVALID_ROUTE_KEY: 'routeKey',
  /** A route key, middleware route or action number another connection of the same node already takes. */
  ALREADY_TAKEN: 'alreadyTaken',
  /** More than one root, or none in a funnel with nodes. */
  ONE_ROOT: 'oneRoot',
  /** An invalid URL. */
  INVALID_URL: 'isUrl',
  /** The last problem when there are more than FUNNEL_LIMITS.maxProblems: how many were left out. */
  MORE_PROBLEMS: 'moreProblems',
});

export const FUNNEL_WARNING_CODES = Object.freeze({
  /** A logic, middleware or AI node with no connection taking `default`. */
  NO_DEFAULT_ROUTE: 'noDefaultRoute',
  /** A route a condition answers (or a key a logic script returns) that no connection takes. */
  UNCONNECTED_ROUTE: 'unconnectedRoute',
  /** A page group with no pages. */
  EMPTY_PAGE_GROUP: 'emptyPageGroup',
  /** The weights out of a root or rotator do not sum to 1. */
  WEIGHTS_SUM: 'weightsSum',
  /** A node no path from the root reaches. */
  UNREACHABLE: 'unreachable',
  /** An offer-group node none of whose connections is a conversion. */
  NO_CONVERSION: 'noConversion',
  /** An active funnel's node names an archived asset (a page group, condition, script, tag, config or setting). */
  ARCHIVED_REFERENCE: 'archivedReference',
  MORE_PROBLEMS: 'moreProblems',
});
