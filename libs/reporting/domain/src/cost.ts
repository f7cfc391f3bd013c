import { decimalPlaces, fromMicros, MONEY_DECIMALS, toMicros } from './decimal';
import type { EntranceQuery, TrackingFieldCondition } from './hit-filters';

export const SEGMENT_COST_TYPES = ['costForWholeSegment', 'costPerEntrance'] as const;
export type SegmentCostType = (typeof SEGMENT_COST_TYPES)[number];

/** One segment of a cost update (the reference API's CostSegment), already validated. */
export interface CostSegment {
  /** Decimal text >= 0. */
  cost: string;
  costType: SegmentCostType;
  /** ISO 3166-1 alpha-2; "" or absent: any country. */
  restrictToCountryCode?: string;
  restrictToTrackingFields?: readonly TrackingFieldCondition[];
}

/** The update's window and lists with one segment's restrictions: the entrances that segment covers. */
export function entranceQueryOf(
  update: { funnelIDs: readonly string[]; trafficSourceIDs: readonly string[]; timeStart: string; timeEnd: string },
  segment: CostSegment,
): EntranceQuery {
  return {
    funnelIds: update.funnelIDs,
    trafficSourceIds: update.trafficSourceIDs,
    timeStart: update.timeStart,
    timeEnd: update.timeEnd,
    countryCode: segment.restrictToCountryCode || undefined,
    trackingFields: segment.restrictToTrackingFields ?? [],
  };
}

/**
 * Splits `cost` evenly over `hitIds` in units of a cent (or of the cost's own last decimal when it
 * has more than 2): every hit gets the same number of units, and the units left over go one each to
 * the first hits in hitId order. The shares add up exactly to `cost`. Returns hitId -> share.
 */
export function spreadCost(cost: string, hitIds: readonly string[]): Map<string, string> {
  const shares = new Map<string, string>();
  if (hitIds.length === 0) return shares;
  const places = Math.max(2, decimalPlaces(cost));
  const microsPerUnit = 10n ** BigInt(MONEY_DECIMALS - places);
  const units = toMicros(cost) / microsPerUnit;
  const count = BigInt(hitIds.length);
  const base = units / count;
  const extra = units % count;
  [...hitIds].sort(compareIds).forEach((hitId, index) => {
    shares.set(hitId, fromMicros((base + (BigInt(index) < extra ? 1n : 0n)) * microsPerUnit));
  });
  return shares;
}

/** The cost each entrance of a segment gets: the whole-segment cost spread, or the per-entrance cost. Returns hitId -> cost. */
export function segmentCosts(segment: CostSegment, entranceHitIds: readonly string[]): Map<string, string> {
  if (segment.costType === 'costForWholeSegment') return spreadCost(segment.cost, entranceHitIds);
  const cost = fromMicros(toMicros(segment.cost));
  return new Map(entranceHitIds.map((hitId) => [hitId, cost]));
}

/** Code-unit order (not locale order), so every process spreads the same way. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
