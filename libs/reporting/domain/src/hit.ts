/** One conversion of a hit: a transaction id (may be ""), its payout as a decimal string, and when it happened. */
export interface HitConversion {
  transactionId: string;
  payout: string;
  /** ISO 8601. */
  time: string;
}

/**
 * The visitor attributes a hit carries, named as `@funnel/visitor-context` names them (the routing
 * variables), so that reports group by what routing saw. "" when unknown (a resolution failure or a
 * hit written before the field existed); the edge writes `unknown` where the spec says so.
 */
export const HIT_VISITOR_FIELDS = [
  'deviceType',
  'brand',
  'model',
  'os',
  'osVersion',
  'browser',
  'browserVersion',
  'mainLanguage',
  'browserLanguage',
  'city',
  'region',
  'continent',
  'timezone',
  'isp',
  'connectionType',
  'mobileCarrier',
  'referrer',
  'userAgent',
] as const;
export type HitVisitorField = (typeof HIT_VISITOR_FIELDS)[number];
export type HitVisitor = Record<HitVisitorField, string>;

/**
 * A hit of the tracking edge as the warehouse keeps it. Written by the edge through
 * `reporting.hits.ingest` or `npm run cli -- hits:import`; changed by reporting updates.
 * Fields added after the first version (`nodeType` .. `clicks`) are optional on ingest, so older
 * NDJSON lines stay valid; a stored hit always has them (empty values when not given).
 */
export interface Hit {
  hitId: string;
  visitorId: string;
  accountId: string;
  idFunnel: string;
  idFunnelGroup: string;
  idTrafficSource: string;
  idNode: string;
  idPage: string;
  /** ISO 3166-1 alpha-2, upper case ("" when unknown). */
  countryCode: string;
  ip: string;
  /** Tracking-field slot -> value. */
  trackingFields: Record<string, string>;
  /** ISO 8601. */
  time: string;
  isEntrance: boolean;
  /** Decimal string >= 0. */
  cost: string;
  conversions: HitConversion[];
  /** Custom event number (1..10) -> count; absent numbers are 0. */
  customEvents: Record<string, number>;
  /** Whether the traffic source's postback was called for this hit. */
  postbackCalled: boolean;
  /** The type of node `idNode` (a funnel node type: `landerGroup`, `offerGroup`, `rotator`, ...); "" when unknown. */
  nodeType: string;
  /** The offer source of the page (`idPage` of an offer), "" otherwise. */
  idOfferSource: string;
  /** The action (1..64) taken from `previousHitId` that led to this hit; 0 for an entrance or a server-side step. */
  action: number;
  /** The hit the visitor came from ("" for an entrance). */
  previousHitId: string;
  /** What the edge knew of the visitor at this hit. */
  visitor: HitVisitor;
  /** Visitor tag ids the visitor held after this hit (a set, sorted). */
  visitorTags: string[];
  /**
   * Actions taken from this hit (lander and offer clicks): counted by the warehouse when a hit naming
   * this one as `previousHitId` with `action` > 0 is stored after it.
   */
  clicks: number;
  /** A middleware node's call (absent on other hits, and on a middleware node's hit the edge did not call for). */
  middleware?: HitMiddlewareCall;
}

/**
 * Why a middleware node took its default route: no route matched a 2xx answer (`noMatch`), no answer
 * in time (`timeout`), a non-2xx answer no route takes or no answer at all (`failure`), the
 * destination's queue was full or its slot did not come in time (`overloaded`), or the matched route
 * has no connection in the funnel (`unconnected`).
 */
export const HIT_MIDDLEWARE_DEFAULT_REASONS = ['noMatch', 'timeout', 'failure', 'overloaded', 'unconnected'] as const;
export type HitMiddlewareDefaultReason = (typeof HIT_MIDDLEWARE_DEFAULT_REASONS)[number];

/** The middleware call of a middleware node's hit, as the edge made it. */
export interface HitMiddlewareCall {
  idMiddlewareConfig: string;
  /** The route the answer matched ("" when none). */
  matchedRouteId: string;
  /** "" when the matched route was followed, else why the default route was taken. */
  defaultReason: HitMiddlewareDefaultReason | '';
  /** The answer's HTTP status; 0 when no answer came. */
  status: number;
  /** From the call's start (its wait for a slot included) to its answer or end, in ms. */
  latencyMs: number;
}

/** A visitor of whom nothing is known (every field ""). */
export function unknownHitVisitor(): HitVisitor {
  return Object.fromEntries(HIT_VISITOR_FIELDS.map((field) => [field, ''])) as HitVisitor;
}

/** The fields added after the first version, as a hit without them has them. */
export function hitDefaults(): Pick<Hit, 'nodeType' | 'idOfferSource' | 'action' | 'previousHitId' | 'visitor' | 'visitorTags' | 'clicks'> {
  return { nodeType: '', idOfferSource: '', action: 0, previousHitId: '', visitor: unknownHitVisitor(), visitorTags: [], clicks: 0 };
}
