import type { HitFilter } from './hit-filters';

/** The spec's ResetUpdateParams with the extra object `restrictToTrackingFields` (slot -> values), already validated. */
export interface ResetUpdateParams {
  timeStart: string;
  timeEnd: string;
  restrictToCampaignIDs?: readonly string[];
  restrictToFunnelIDs?: readonly string[];
  restrictToTrafficSourceIDs?: readonly string[];
  restrictToCountryCodes?: readonly string[];
  restrictToVisitorIDs?: readonly string[];
  restrictToIPs?: readonly string[];
  restrictToTrackingFields?: Readonly<Record<string, readonly string[]>>;
}

/** The hits a reset removes. `restrictToCampaignIDs` are funnel group ids; an empty list does not restrict. */
export function resetFilterOf(params: ResetUpdateParams): HitFilter {
  return {
    timeStart: params.timeStart,
    timeEnd: params.timeEnd,
    funnelGroupIds: params.restrictToCampaignIDs ?? [],
    funnelIds: params.restrictToFunnelIDs ?? [],
    trafficSourceIds: params.restrictToTrafficSourceIDs ?? [],
    countryCodes: params.restrictToCountryCodes ?? [],
    visitorIds: params.restrictToVisitorIDs ?? [],
    ips: params.restrictToIPs ?? [],
    trackingFields: params.restrictToTrackingFields ?? {},
  };
}
