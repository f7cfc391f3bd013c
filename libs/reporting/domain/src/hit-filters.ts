import type { Hit } from './hit';

/** A tracking-field condition of a cost segment: the hit's value in slot `key` ("" when it has none) equals `value`. */
export interface TrackingFieldCondition {
  /** A tracking-field slot: `campaign`, `external`, `c1`..`c20`. */
  key: string;
  value: string;
}

/**
 * The entrance hits a cost segment covers: entrances of the account in `[timeStart, timeEnd)`, of one
 * of `funnelIds` and one of `trafficSourceIds` (an empty list does not restrict), in `countryCode`
 * when given, and holding every tracking-field condition.
 */
export interface EntranceQuery {
  funnelIds: readonly string[];
  trafficSourceIds: readonly string[];
  /** ISO 8601, inclusive. */
  timeStart: string;
  /** ISO 8601, exclusive. */
  timeEnd: string;
  /** ISO 3166-1 alpha-2; "" or absent: any country. */
  countryCode?: string;
  trackingFields?: readonly TrackingFieldCondition[];
}

/**
 * The hits a reset removes: hits of the account in `[timeStart, timeEnd)` matching every non-empty
 * list (a list matches when the hit's value is one of it). `trackingFields` maps a slot to its
 * accepted values: AND across slots, OR within one slot's values.
 */
export interface HitFilter {
  /** ISO 8601, inclusive. */
  timeStart: string;
  /** ISO 8601, exclusive. */
  timeEnd: string;
  /** Funnel group ids (the spec's `restrictToCampaignIDs`). */
  funnelGroupIds?: readonly string[];
  funnelIds?: readonly string[];
  trafficSourceIds?: readonly string[];
  countryCodes?: readonly string[];
  visitorIds?: readonly string[];
  ips?: readonly string[];
  trackingFields?: Readonly<Record<string, readonly string[]>>;
}

/** Milliseconds since the epoch of an ISO 8601 time (the stores compare times as numbers). */
export function timeMs(iso: string): number {
  return Date.parse(iso);
}

function inWindow(hit: Hit, timeStart: string, timeEnd: string): boolean {
  const at = timeMs(hit.time);
  return at >= timeMs(timeStart) && at < timeMs(timeEnd);
}

function oneOf(value: string, list: readonly string[] | undefined): boolean {
  return !list || list.length === 0 || list.includes(value);
}

/** Whether `hit` is an entrance the cost segment covers (the reference the stores' queries must agree with). */
export function matchesEntranceQuery(hit: Hit, query: EntranceQuery): boolean {
  return (
    hit.isEntrance &&
    inWindow(hit, query.timeStart, query.timeEnd) &&
    oneOf(hit.idFunnel, query.funnelIds) &&
    oneOf(hit.idTrafficSource, query.trafficSourceIds) &&
    (!query.countryCode || hit.countryCode === query.countryCode) &&
    (query.trackingFields ?? []).every((condition) => (hit.trackingFields[condition.key] ?? '') === condition.value)
  );
}

/** Whether a reset with `filter` removes `hit` (the reference the stores' queries must agree with). */
export function matchesHitFilter(hit: Hit, filter: HitFilter): boolean {
  return (
    inWindow(hit, filter.timeStart, filter.timeEnd) &&
    oneOf(hit.idFunnelGroup, filter.funnelGroupIds) &&
    oneOf(hit.idFunnel, filter.funnelIds) &&
    oneOf(hit.idTrafficSource, filter.trafficSourceIds) &&
    oneOf(hit.countryCode, filter.countryCodes) &&
    oneOf(hit.visitorId, filter.visitorIds) &&
    oneOf(hit.ip, filter.ips) &&
    Object.entries(filter.trackingFields ?? {}).every(([slot, values]) => values.length === 0 || values.includes(hit.trackingFields[slot] ?? ''))
  );
}
