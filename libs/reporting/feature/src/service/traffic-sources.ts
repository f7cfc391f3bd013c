import { CallerContext, TRAFFIC_SOURCE_KIND, assetSubject } from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import { ORGANIC_TRAFFIC_SOURCE, TrafficSourcePostbackSettings } from '@funnel/reporting-domain';

/** The one assets subject the reporting service calls (its NATS permissions allow no other). */
export const TRAFFIC_SOURCE_FIND_BY_ID = assetSubject(TRAFFIC_SOURCE_KIND.kind, 'findById');

export type TrafficSourceLookup = (accountId: string, idTrafficSource: string) => Promise<TrafficSourcePostbackSettings | undefined>;

/**
 * A traffic source's postback settings, read from assets-service over the service bus with a
 * context of the job's account (so only that account's sources are found). A source that no longer
 * exists (404) has no postback; any other failure throws, so the job is retried.
 */
export function trafficSourcesFrom(assets: ServiceClient): TrafficSourceLookup {
  return async (accountId, idTrafficSource) => {
    if (!idTrafficSource || idTrafficSource === ORGANIC_TRAFFIC_SOURCE) return undefined;
    const context: CallerContext = { accountId, userId: 'reporting-service', permissions: ['assets:read'], correlationId: `reporting-${idTrafficSource}` };
    try {
      const reply = await assets.request<{ result?: TrafficSourcePostbackSettings }>(TRAFFIC_SOURCE_FIND_BY_ID, {
        context,
        body: { query: { [TRAFFIC_SOURCE_KIND.idField]: idTrafficSource } },
      });
      return reply?.result;
    } catch (error) {
      if ((error as { status?: number })?.status === 404) return undefined;
      throw error;
    }
  };
}

/** One lookup per source per job: a job's rows share the answers. */
export function cachedPerJob(lookup: TrafficSourceLookup): TrafficSourceLookup {
  const cache = new Map<string, Promise<TrafficSourcePostbackSettings | undefined>>();
  return (accountId, id) => {
    const key = `${accountId}\n${id}`;
    let found = cache.get(key);
    if (!found) {
      found = lookup(accountId, id);
      cache.set(key, found);
      found.catch(() => cache.delete(key));
    }
    return found;
  };
}
