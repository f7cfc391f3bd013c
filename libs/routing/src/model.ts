// The routing engine's inputs and outputs. Pure data: no Nest, no I/O, no clock. Times are UTC epoch
// milliseconds; money is decimal text (as hits and the reporting updates carry it).
//
//   compileFunnel(assets)                -> CompiledFunnel     (once per funnel version; scripts compiled here)
//   startWalk(funnel, input)             -> WalkOutcome        (sync; pauses at middleware nodes)
//   walk(funnel, input, middleware)      -> Promise<WalkResult> (drives the pauses through a port)
//   walkSync(funnel, input, answers)     -> WalkResult         (answers known up front: the simulator)
import type { FunnelNodeType, FunnelRecord } from '@funnel/assets-domain';
import type { VisitorAttributes } from '@funnel/visitor-context';

/** An asset record as the read model answers it (secrets encrypted where the kind has them). */
export type AssetRecordLike = Readonly<Record<string, unknown>>;

/**
 * What a funnel walk may touch: the funnel and every asset it names, as records. The edge keeps these
 * per account and recompiles a funnel when one of them changes; the simulator loads them per request.
 * Records are looked up by their id field (`idPageGroup`, `idPage`, ...); a missing or deleted asset is
 * simply absent, and the walk says so where it needs it.
 */
export interface FunnelAssets {
  funnel: FunnelRecord;
  /** The funnel's funnel group (its tracking URL params and default cost), when known. */
  funnelGroup?: AssetRecordLike;
  pageGroups: readonly AssetRecordLike[];
  pages: readonly AssetRecordLike[];
  conditions: readonly AssetRecordLike[];
  logicScripts: readonly AssetRecordLike[];
  middlewareConfigs: readonly AssetRecordLike[];
  webhookConfigs: readonly AssetRecordLike[];
  visitorTags: readonly AssetRecordLike[];
  aiNodeSettings: readonly AssetRecordLike[];
  trafficSources: readonly AssetRecordLike[];
  offerSources: readonly AssetRecordLike[];
  /**
   * AI node scores by idAINodeSetting then route key (higher is better; e.g. the conversion rate of
   * the last `lookbackWindow` hours), refreshed by whoever owns the reporting data. Absent: no data
   * yet, every variant gets an equal share.
   */
  aiScores?: Readonly<Record<string, Readonly<Record<string, number>>>>;
}

/** The FunnelAssets list each kind's records go into (the funnel and its funnel group have fields of their own), by kind name. */
export const FUNNEL_ASSET_LISTS = {
  pagegroup: 'pageGroups',
  page: 'pages',
  condition: 'conditions',
  logicscript: 'logicScripts',
  middlewareconfig: 'middlewareConfigs',
  webhookconfig: 'webhookConfigs',
  visitortag: 'visitorTags',
  ainodesetting: 'aiNodeSettings',
  trafficsource: 'trafficSources',
  offersource: 'offerSources',
} as const satisfies Record<string, keyof FunnelAssets>;

/** A kind whose records go into one of FunnelAssets' lists. */
export type FunnelAssetListKind = keyof typeof FUNNEL_ASSET_LISTS;

/** The engine's FunnelAssets from a funnel, its funnel group and the records found per kind name (a kind with none: an empty list). */
export function funnelAssetsOf(funnel: FunnelRecord, found: Readonly<Record<string, readonly AssetRecordLike[]>>, funnelGroup?: AssetRecordLike): FunnelAssets {
  const lists = {} as Record<(typeof FUNNEL_ASSET_LISTS)[FunnelAssetListKind], readonly AssetRecordLike[]>;
  for (const [kind, list] of Object.entries(FUNNEL_ASSET_LISTS)) lists[list] = found[kind] ?? [];
  return { funnel, ...(funnelGroup ? { funnelGroup } : {}), ...lists };
}

/** A funnel ready to walk: nodes and connections indexed, scripts compiled, static warnings found. Immutable. */
export interface CompiledFunnel {
  readonly idFunnel: string;
  readonly funnelName: string;
  readonly idFunnelGroup: string;
  /** The root node's id ("" in a funnel with no nodes). */
  readonly idRootNode: string;
  /** Warnings that hold for every walk (weights that do not sum to 1, a missing default, ...). */
  readonly warnings: readonly RoutingWarning[];
  /** The assets it was compiled from (names for answers, traffic sources for entrances). */
  readonly assets: FunnelAssets;
}

/** What is known of the visitor at this request (the edge fills it from the request, the simulator from the body). */
export interface RoutingVisitor {
  /** The `@funnel/visitor-context` attributes (country, deviceType, os, ..., utcOffsetHours). */
  attributes: VisitorAttributes;
  /** The request's time, UTC epoch ms. */
  time: number;
  /** The URL parameters of this request (entrance or action link); they join the session's URL buffer. */
  params?: Readonly<Record<string, string>>;
  /** The client address (kept on hits); "" when unknown. */
  ip?: string;
}

/** A visitor's session: what the edge keeps between requests (about 24 hours), keyed by visitorId. */
export interface RoutingSession {
  visitorId: string;
  /** When the session began, UTC epoch ms. */
  startedAt: number;
  idFunnel: string;
  idTrafficSource: string;
  /** The node the visitor is on (a lander or offer group after a redirect to a page); "" before any. */
  currentNode: string;
  /** The last hit recorded for the visitor ("" before any). */
  lastHitId: string;
  /** The page shown last (for action links from it). */
  currentPage: string;
  /** Tracking-field slot -> value, as the entrance gave them (only the source's configured fields). */
  trackingFields: Record<string, string>;
  /** The entrance's cost (decimal text). */
  cost: string;
  /** Visitor tag ids the visitor holds (sorted, unique). */
  tags: string[];
  /** `session` rotators: idNode -> idConnection chosen the first time; page groups rotating by `session`: idNode -> idPage shown. */
  sticky: Record<string, string>;
  /** Every URL parameter seen in the session (`{data-<name>}`), the latest value of each. */
  urlBuffer: Record<string, string>;
}

/** One request of a visitor. */
export type RoutingStep =
  | {
      entrance: {
        idTrafficSource: string;
        /** Enter at this node instead of the root. */
        idNode?: string;
        /** The entrance link's full URL; its query joins `visitor.params`. */
        url?: string;
        /** A cost given by the link (decimal text); else the funnel's override for the source, else the source's default. */
        cost?: string;
      };
    }
  | { action: number };

/** A number in [0, 1); the engine's only source of chance. */
export type RandomSource = () => number;

/** New ids for hits and (on a first entrance) the visitor: 12-character asset-id format. */
export type IdSource = () => string;

export interface WalkInput {
  visitor: RoutingVisitor;
  /** The visitor's session, or null for a visitor the edge has not seen (an action then dead-ends). */
  session: RoutingSession | null;
  step: RoutingStep;
  random: RandomSource;
  ids: IdSource;
}

/** Why a walk decided what it did at one node. */
export type StepDecision =
  | {
      kind: 'entrance';
      idTrafficSource: string;
      cost: string;
      costFrom: 'link' | 'funnelOverride' | 'funnelDefault' | 'funnelGroupDefault' | 'trafficSource' | 'none';
      /** The traffic source's incomingCostModifier (percent) applied to the cost taken (100: as is). */
      incomingCostModifier: number;
    }
  /** `drawn` is -1 when a sticky choice was reused (nothing drawn). */
  | { kind: 'weight'; drawn: number; idConnection: string; share: number; sticky: boolean }
  | {
      kind: 'condition';
      idCondition: string;
      routeKey: string;
      matchedRoute: { idRoute: string; routeName: string } | null;
      reason: string;
      idConnection: string | null;
    }
  | { kind: 'logic'; idLogicScript: string; routeKey: string; fallback: boolean; reasonCode: string; reason: string; idConnection: string | null }
  | { kind: 'ai'; idAINodeSetting: string; routeKey: string; drawn: number; shares: Record<string, number>; reason: string; idConnection: string | null }
  | { kind: 'middleware'; idMiddlewareConfig: string; routeId: string; from: 'answer' | 'default'; reason: string; idConnection: string | null }
  /** `drawn` is -1 when the page shown before was shown again (a group rotating by `session`). */
  | { kind: 'page'; idPageGroup: string; idPage: string; drawn: number; share: number }
  | { kind: 'action'; action: number; idConnection: string | null; isConversion: boolean }
  | { kind: 'passThrough'; idConnection: string | null }
  | { kind: 'url'; url: string };

/** One node visited: what it is, what it decided and the hit it records. */
export interface WalkStep {
  idNode: string;
  nodeName: string;
  nodeType: FunnelNodeType;
  hitId: string;
  decision: StepDecision;
}

/** A hit the walk would record (the edge turns these into reporting hits with the visitor's context). */
export interface RoutedHit {
  hitId: string;
  visitorId: string;
  idFunnel: string;
  idFunnelGroup: string;
  idTrafficSource: string;
  idNode: string;
  nodeType: FunnelNodeType;
  /** The page shown (lander or offer group hits), else "". */
  idPage: string;
  /** The offer's offer source (offer hits), else "". */
  idOfferSource: string;
  isEntrance: boolean;
  /** The action (1..64) that led here from `previousHitId`; 0 for an entrance or a server-side step. */
  action: number;
  previousHitId: string;
  /** Decimal text: the entrance's cost on the entrance hit, "0" on the others. */
  cost: string;
  time: number;
  trackingFields: Record<string, string>;
  /** Tag ids the visitor holds after this hit (sorted). */
  visitorTags: string[];
}

/** Where the walk ends. */
export type WalkDestination =
  | { type: 'page'; idNode: string; idPage: string; pageType: 'lander' | 'offer'; redirectType: string; url: string }
  | { type: 'url'; idNode: string; url: string }
  | { type: 'deadEnd'; idNode: string; reason: string };

/** What a walk would cause beyond its answer. */
export type RoutingEffect =
  | { type: 'webhookDispatch'; idNode: string; idWebhookConfig: string; eventType: 'node_execution'; hitId: string }
  | { type: 'middlewareCall'; idNode: string; idMiddlewareConfig: string; routeId: string; from: 'answer' | 'default' }
  | { type: 'tagsSet'; idNode: string; idTags: string[] }
  /** An `isConversion` action from an offer: a conversion of `hitId` (the offer's hit) at the offer's payout. */
  | { type: 'conversion'; idNode: string; hitId: string; idPage: string; payout: string; action: number };

export interface RoutingWarning {
  /**
   * Stable code. Of the funnel (funnelWarnings): noDefaultRoute, unconnectedRoute, emptyPageGroup, weightsSum,
   * unreachable, noConversion, archivedReference. Of the compiled assets: missingAsset, invalidScript,
   * emptyPageGroup. Of one walk: deadEnd, noDefaultRoute, loopCut, missingAsset, missingNode, emptyPageGroup,
   * unknownAction, notOnPage, noSession, invalidCost.
   */
  code: string;
  idNode?: string;
  message: string;
}

export interface WalkResult {
  steps: WalkStep[];
  hits: RoutedHit[];
  destination: WalkDestination;
  /** The redirect target with every token replaced and `vid=` added; null at a dead end. */
  url: string | null;
  /** The session after the step (a new one on a first entrance). */
  session: RoutingSession;
  effects: RoutingEffect[];
  warnings: RoutingWarning[];
}

/** A middleware node's request, for whoever answers it (the edge calls the destination; the simulator may). */
export interface MiddlewareCall {
  idNode: string;
  idMiddlewareConfig: string;
  /** The config record (destination with encrypted secrets; the caller decrypts what it sends). */
  config: AssetRecordLike;
  /** The node's destination overrides, if any. */
  overrides?: Readonly<Record<string, unknown>>;
  /** The reference payload (`schema_version`, `event_type: middleware_request`, `request_id`, ...). */
  payload: Record<string, unknown>;
  /** The config's timeout (1..10,000 ms). */
  timeoutMs: number;
}

/** The answer to a middleware call: the route it chose, or a failure (the default route is then taken). */
export type MiddlewareAnswer = { routeId: string } | { failure: string };

/** A walk either finished or paused at a middleware node waiting for its answer. */
export type WalkOutcome = { done: true; result: WalkResult } | { done: false; call: MiddlewareCall; resume(answer: MiddlewareAnswer): WalkOutcome };

/** The most server-side nodes one request walks before the walk is cut (a loop). */
export const MAX_SERVER_STEPS = 32;
