import {
  MAX_BULK_IDS,
  TRAFFIC_SOURCE_KIND,
  assetKindByName,
  assetSubject,
  isValidAssetId,
  jsonValue,
  type AssetKindDescriptor,
  type CallerContext,
} from '@funnel/contracts';
import type { ServiceClient } from '@funnel/platform';
import { FUNNEL_KIND } from '@funnel/contracts';
import type { NameBook, NameRequest, TrackingFieldNames } from '@funnel/reporting-queries-domain';

/** The names a report shows for ids (assets of the caller's account, archived included). */
export interface AssetNames {
  /** Names for the requests; an id whose asset is not found is shown as the id. */
  names(context: CallerContext, requests: readonly NameRequest[]): Promise<NameBook>;
  /** A traffic source's tracking-field names (`trackingFieldSlots`), or undefined when there is none. */
  trackingFieldNames(context: CallerContext, idTrafficSource: string): Promise<TrackingFieldNames | undefined>;
}

/** The assets subjects the report queries call (reporting-service's NATS permissions list them). */
export const ASSET_NAME_KINDS = ['funnelgroup', 'funnel', 'page', 'trafficsource', 'offersource', 'visitortag'] as const;
export const ASSET_NAME_SUBJECTS: readonly string[] = ASSET_NAME_KINDS.map((kind) => assetSubject(kind, 'findByIds'));

const key = (request: Pick<NameRequest, 'names' | 'id' | 'context'>) => JSON.stringify([request.names, request.id, request.context ?? '']);

/**
 * Names over the service bus: one `assets.<kind>.findByIds` per kind (chunks of MAX_BULK_IDS ids,
 * only the ids on the page), with a read context of the caller's account. Node names come from
 * their funnels' `nodes`. find/byIds leaves out deleted assets (archived ones are found).
 */
export function assetNamesOverBus(assets: ServiceClient): AssetNames {
  async function records(context: CallerContext, kind: AssetKindDescriptor, ids: readonly string[]): Promise<Record<string, unknown>[]> {
    const valid = [...new Set(ids)].filter((id) => isValidAssetId(id));
    const found: Record<string, unknown>[] = [];
    const readContext: CallerContext = { ...context, permissions: ['assets:read'] };
    for (let i = 0; i < valid.length; i += MAX_BULK_IDS) {
      const chunk = valid.slice(i, i + MAX_BULK_IDS);
      const reply = await assets.request<{ result?: unknown } | undefined>(assetSubject(kind.kind, 'findByIds'), {
        context: readContext,
        body: { query: { [kind.idsParam]: chunk.join(',') }, body: undefined },
      });
      const result = jsonValue<unknown>(reply?.result);
      if (Array.isArray(result)) found.push(...(result as Record<string, unknown>[]));
    }
    return found;
  }

  return {
    async names(context, requests) {
      const found = new Map<string, string>();
      const byKind = new Map<string, NameRequest[]>();
      for (const request of requests) {
        const group = request.names.kind === 'asset' ? request.names.assetKind : request.names.kind === 'funnelNode' ? 'funnelNode' : undefined;
        if (group) byKind.set(group, [...(byKind.get(group) ?? []), request]);
      }
      await Promise.all(
        [...byKind.entries()].map(async ([group, wanted]) => {
          if (group === 'funnelNode') {
            const funnels = await records(
              context,
              FUNNEL_KIND,
              wanted.flatMap((request) => (request.context ? [request.context] : [])),
            );
            for (const funnel of funnels) {
              for (const node of Array.isArray(funnel.nodes) ? (funnel.nodes as Record<string, unknown>[]) : []) {
                if (typeof node.idNode === 'string' && typeof node.nodeName === 'string')
                  found.set(key({ names: { kind: 'funnelNode' }, id: node.idNode, context: String(funnel.idFunnel) }), node.nodeName);
              }
            }
            return;
          }
          const kind = assetKindByName(group);
          if (!kind) return;
          for (const record of await records(
            context,
            kind,
            wanted.map((request) => request.id),
          )) {
            const id = record[kind.idField];
            const name = record[kind.nameField];
            if (typeof id === 'string' && typeof name === 'string') found.set(key({ names: { kind: 'asset', assetKind: group }, id }), name);
          }
        }),
      );
      return (request) => found.get(key(request));
    },

    async trackingFieldNames(context, idTrafficSource) {
      const [source] = await records(context, TRAFFIC_SOURCE_KIND, [idTrafficSource]);
      return source?.trackingFieldSlots as TrackingFieldNames | undefined;
    },
  };
}

/** No asset service (tests of the engines alone): every id is shown as is. */
export const NO_ASSET_NAMES: AssetNames = {
  names: async () => () => undefined,
  trackingFieldNames: async () => undefined,
};
