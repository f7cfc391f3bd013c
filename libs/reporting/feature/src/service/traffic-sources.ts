import { AssetKindDescriptor, CallerContext, FUNNEL_KIND, TRAFFIC_SOURCE_KIND, assetSubject } from '@funnel/contracts';
import { type ServiceClient, requestAssetRecord } from '@funnel/platform';
import { ORGANIC_TRAFFIC_SOURCE, TrafficSourcePostbackSettings } from '@funnel/reporting-domain';

/** The assets subjects the reporting service calls (its NATS permissions allow no others). */
export const TRAFFIC_SOURCE_FIND_BY_ID = assetSubject(TRAFFIC_SOURCE_KIND.kind, 'findById');
export const FUNNEL_FIND_BY_ID = assetSubject(FUNNEL_KIND.kind, 'findById');

export type TrafficSourceLookup = (accountId: string, idTrafficSource: string) => Promise<TrafficSourcePostbackSettings | undefined>;

/**
 * A traffic source's postback settings, read from assets-service over the service bus with a
 * context of the job's account (so only that account's sources are found). A source that no longer
 * exists (404) has no postback; any other failure throws, so the job is retried.
 */
export function trafficSourcesFrom(assets: ServiceClient): TrafficSourceLookup {
  return async (accountId, idTrafficSource) => {
    if (!idTrafficSource || idTrafficSource === ORGANIC_TRAFFIC_SOURCE) return undefined;
    return findById<TrafficSourcePostbackSettings>(assets, accountId, TRAFFIC_SOURCE_KIND, idTrafficSource);
  };
}

type Postback = TrafficSourcePostbackSettings['postback'];
export type FunnelPostbackLookup = (accountId: string, idFunnel: string, idTrafficSource: string) => Promise<Postback | undefined>;

/** A funnel's `postbackOverrides` entry for a traffic source (it replaces the source's postback for the funnel's hits). */
export function funnelPostbacksFrom(assets: ServiceClient): FunnelPostbackLookup {
  return async (accountId, idFunnel, idTrafficSource) => {
    const funnel = await findById<{ postbackOverrides?: (Postback & { idTrafficSource: string })[] }>(assets, accountId, FUNNEL_KIND, idFunnel);
    const entry = funnel?.postbackOverrides?.find((override) => override.idTrafficSource === idTrafficSource);
    return entry ? { postbackType: entry.postbackType, postbackCode: entry.postbackCode } : undefined;
  };
}

/** An asset of the account by id, or undefined when there is none (404); other failures throw, so the job is retried. */
async function findById<T>(assets: ServiceClient, accountId: string, kind: AssetKindDescriptor, id: string): Promise<T | undefined> {
  const context: CallerContext = { accountId, userId: 'reporting-service', permissions: ['assets:read'], correlationId: `reporting-${id}` };
  try {
    return await requestAssetRecord<T>(assets, kind, context, id);
  } catch (error) {
    if ((error as { status?: number })?.status === 404) return undefined;
    throw error;
  }
}

/** One lookup per key per job: a job's rows share the answers. */
export function cachedPerJob<A extends string[], T>(lookup: (...args: A) => Promise<T>): (...args: A) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (...args) => {
    const key = args.join('\n');
    let found = cache.get(key);
    if (!found) {
      found = lookup(...args);
      cache.set(key, found);
      found.catch(() => cache.delete(key));
    }
    return found;
  };
}
