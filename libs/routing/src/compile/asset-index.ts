// The assets of a funnel by kind and id, as compileFunnel reads them.
import type { AssetRecordLike, FunnelAssets } from '../model';
import { text } from './records';

/** Which list of FunnelAssets holds each asset kind (the kind names of @funnel/assets-domain's references), and its id field. */
const LISTS = {
  pagegroup: { list: 'pageGroups', idField: 'idPageGroup' },
  page: { list: 'pages', idField: 'idPage' },
  condition: { list: 'conditions', idField: 'idCondition' },
  logicscript: { list: 'logicScripts', idField: 'idLogicScript' },
  middlewareconfig: { list: 'middlewareConfigs', idField: 'idMiddlewareConfig' },
  webhookconfig: { list: 'webhookConfigs', idField: 'idWebhookConfig' },
  visitortag: { list: 'visitorTags', idField: 'idTag' },
  ainodesetting: { list: 'aiNodeSettings', idField: 'idAINodeSetting' },
  trafficsource: { list: 'trafficSources', idField: 'idTrafficSource' },
  offersource: { list: 'offerSources', idField: 'idOfferSource' },
} as const satisfies Record<string, { list: keyof FunnelAssets; idField: string }>;

export type AssetKindName = keyof typeof LISTS;

/** Asset records by kind and id; deleted records count as absent. */
export class AssetIndex {
  private readonly byKind = new Map<string, Map<string, AssetRecordLike>>();

  constructor(assets: FunnelAssets) {
    for (const [kind, { list, idField }] of Object.entries(LISTS)) {
      const byId = new Map<string, AssetRecordLike>();
      const records = assets[list as keyof FunnelAssets];
      if (Array.isArray(records)) {
        for (const record of records as AssetRecordLike[]) {
          const id = text(record, idField);
          if (id !== '' && text(record, 'status') !== 'deleted') byId.set(id, record);
        }
      }
      this.byKind.set(kind, byId);
    }
  }

  get(kind: AssetKindName, id: string): AssetRecordLike | undefined {
    return this.byKind.get(kind)?.get(id);
  }

  /** Whether the kind is one the index holds (a kind the funnel names that the engine does not read is never "missing"). */
  holds(kind: string): kind is AssetKindName {
    return this.byKind.has(kind);
  }

  /** The ids of the kind's records with this status. */
  idsWithStatus(kind: AssetKindName, status: string): Set<string> {
    const ids = new Set<string>();
    for (const [id, record] of this.byKind.get(kind) ?? []) if (text(record, 'status') === status) ids.add(id);
    return ids;
  }

  records(kind: AssetKindName): IterableIterator<AssetRecordLike> {
    return (this.byKind.get(kind) ?? new Map<string, AssetRecordLike>()).values();
  }
}
