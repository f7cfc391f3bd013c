import {
  HIT_TRACKING_SLOTS,
  HIT_VISITOR_FIELDS,
  TRACKING_VALUE_MAX,
  VISITOR_TAGS_MAX,
  VISITOR_VALUE_MAX,
  isCountryCode,
  isIpAddress,
  moneyText,
  type Hit,
  type HitVisitor,
} from '@funnel/reporting-domain';
import type { RoutedHit, RoutingVisitor } from '@funnel/routing';

/** What a hit keeps of the request's visitor: its attributes and client address. */
export type HitVisitorSource = Pick<RoutingVisitor, 'attributes' | 'ip'>;

const TRACKING_SLOTS: ReadonlySet<string> = new Set(HIT_TRACKING_SLOTS);

/**
 * A new hit's conversions and custom events: none. One frozen empty list and map shared by every hit
 * the edge makes (ingest and the hits' JSON read them; later updates make new ones, never change these).
 */
const NO_CONVERSIONS = Object.freeze([]) as unknown as Hit['conversions'];
const NO_CUSTOM_EVENTS = Object.freeze({}) as Hit['customEvents'];

/**
 * The visitor attributes a hit carries, as routing read them: a string attribute as is (`unknown`
 * where the visitor context could not resolve it, "" where resolving failed), cut to the length a
 * hit keeps (long user agents and referrers); an absent or non-string attribute is "" (routing
 * reads it so).
 */
export function hitVisitorOf(attributes: RoutingVisitor['attributes']): HitVisitor {
  const visitor = {} as HitVisitor;
  for (const field of HIT_VISITOR_FIELDS) {
    const value = attributes[field];
    visitor[field] = typeof value !== 'string' ? '' : value.length > VISITOR_VALUE_MAX ? value.slice(0, VISITOR_VALUE_MAX) : value;
  }
  return visitor;
}

/** The request's country as a hit keeps it: an upper-case ISO 3166-1 alpha-2 code, else "" (`unknown` included). */
export function hitCountryOf(attributes: RoutingVisitor['attributes']): string {
  const country = attributes['country'];
  return isCountryCode(country) ? country : '';
}

/** The client address as a hit keeps it: an IPv4 or IPv6 address, else "" (unknown or anonymized). */
export function hitIpOf(visitor: HitVisitorSource): string {
  const ip = visitor.ip ?? visitor.attributes['ip'];
  return typeof ip === 'string' && ip !== '' && isIpAddress(ip) ? ip : '';
}

/** The traffic source's tracking fields a hit keeps: the hit slots only, values cut to TRACKING_VALUE_MAX. */
function hitTrackingFieldsOf(fields: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const slot in fields) {
    const value = fields[slot];
    if (TRACKING_SLOTS.has(slot) && typeof value === 'string') kept[slot] = value.length > TRACKING_VALUE_MAX ? value.slice(0, TRACKING_VALUE_MAX) : value;
  }
  return kept;
}

/** The parts of a hit that every hit of one request shares (the visitor's), computed once per request. */
export interface RequestHitContext {
  accountId: string;
  countryCode: string;
  ip: string;
  visitor: HitVisitor;
  /**
   * What the request's hits repeat, worked out for the first hit that has it and reused by the
   * next ones (a walk's hits share the request's time, the session's tracking fields and, until a
   * tag node, its tags): the values as a hit keeps them, by what they were made from.
   */
  shared?: SharedHitParts;
}

interface SharedHitParts {
  time: number;
  isoTime: string;
  trackingFields: Readonly<Record<string, string>>;
  keptFields: Record<string, string>;
  tags: readonly string[];
  keptTags: string[];
}

/** The request's share of its hits: the account and what is known of the visitor. */
export function requestHitContext(accountId: string, visitor: HitVisitorSource): RequestHitContext {
  return { accountId, countryCode: hitCountryOf(visitor.attributes), ip: hitIpOf(visitor), visitor: hitVisitorOf(visitor.attributes) };
}

/** The hit's time, tracking fields and tags as a hit keeps them, reusing what the request's previous hit made of the same values. */
function sharedPartsOf(context: RequestHitContext, routed: RoutedHit): SharedHitParts {
  let shared = context.shared;
  if (shared === undefined) {
    shared = {
      time: routed.time,
      isoTime: new Date(routed.time).toISOString(),
      trackingFields: routed.trackingFields,
      keptFields: hitTrackingFieldsOf(routed.trackingFields),
      tags: routed.visitorTags,
      keptTags: hitTagsOf(routed.visitorTags),
    };
    context.shared = shared;
    return shared;
  }
  if (shared.time !== routed.time) {
    shared.time = routed.time;
    shared.isoTime = new Date(routed.time).toISOString();
  }
  if (shared.trackingFields !== routed.trackingFields) {
    shared.trackingFields = routed.trackingFields;
    shared.keptFields = hitTrackingFieldsOf(routed.trackingFields);
  }
  if (shared.tags !== routed.visitorTags) {
    shared.tags = routed.visitorTags;
    shared.keptTags = hitTagsOf(routed.visitorTags);
  }
  return shared;
}

function hitTagsOf(tags: readonly string[]): string[] {
  return tags.length > VISITOR_TAGS_MAX ? tags.slice(0, VISITOR_TAGS_MAX) : [...tags];
}

/**
 * The reporting hit of one node visited (`Hit` of @funnel/reporting-domain, valid for ingest): the
 * walk's hit, the request's visitor, ISO time, no clicks, conversions or custom events yet (later
 * updates add them), the postback not called. Values a hit cannot hold are made to fit rather than
 * the hit refused: a cost that is not money text is "0", tracking fields outside the hit slots are
 * left out, long values are cut.
 */
export function reportingHitOf(context: RequestHitContext, routed: RoutedHit): Hit {
  const shared = sharedPartsOf(context, routed);
  return {
    hitId: routed.hitId,
    visitorId: routed.visitorId,
    accountId: context.accountId,
    idFunnel: routed.idFunnel,
    idFunnelGroup: routed.idFunnelGroup,
    idTrafficSource: routed.idTrafficSource,
    idNode: routed.idNode,
    idPage: routed.idPage,
    countryCode: context.countryCode,
    ip: context.ip,
    trackingFields: shared.keptFields,
    time: shared.isoTime,
    isEntrance: routed.isEntrance,
    cost: moneyText(routed.cost) ?? '0',
    conversions: NO_CONVERSIONS,
    customEvents: NO_CUSTOM_EVENTS,
    postbackCalled: false,
    nodeType: routed.nodeType,
    idOfferSource: routed.idOfferSource,
    action: routed.action,
    previousHitId: routed.previousHitId,
    visitor: context.visitor,
    visitorTags: shared.keptTags,
    clicks: 0,
  };
}

/** The reporting hits of one request's walk, in the walk's order (they share the visitor's parts). */
export function reportingHitsOf(accountId: string, visitor: HitVisitorSource, routed: readonly RoutedHit[]): Hit[] {
  if (routed.length === 0) return [];
  const context = requestHitContext(accountId, visitor);
  return routed.map((hit) => reportingHitOf(context, hit));
}
