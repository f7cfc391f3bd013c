import { Inject, Injectable } from '@nestjs/common';
import { EDGE_SNAPSHOT_KINDS, EDGE_SNAPSHOT_PAGE_DEFAULT, EDGE_SNAPSHOT_PAGE_MAX, EdgeSnapshotAsset, EdgeSnapshotPage, ServiceError } from '@funnel/contracts';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { ASSET_REGISTRY } from '../assets.tokens';
import { assetsCollection } from '../asset-documents';
import { ASSET_READ_MODEL_PROJECTION } from '../asset-projector';
import { withoutSecrets } from '../event-relay/asset-event-message';

/**
 * The tracking edge's load (`assets.internal.edgesnapshot`): every account's non-deleted assets of
 * the routing kinds, archived ones included (their status tells), in document id order, paged, with
 * the read model's position read before the page. Records lose their write-only secrets exactly as
 * the asset event stream's do, so what the edge loads and what it then receives look the same.
 */
@Injectable()
export class EdgeSnapshotQuery {
  private readonly collection = assetsCollection(this.readStore);
  private readonly kinds: string[];

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
  ) {
    this.kinds = EDGE_SNAPSHOT_KINDS.filter((kind) => registry.has(kind));
  }

  async page(body: unknown): Promise<EdgeSnapshotPage> {
    const { after, limit } = parseRequest(body);
    // Read first: every event up to it is in the documents read after.
    const checkpoint = await this.readStore.checkpoints.get(ASSET_READ_MODEL_PROJECTION);
    const filter: Record<string, unknown> = { kind: { $in: this.kinds }, status: { $ne: 'deleted' } };
    if (after !== undefined) filter['_id'] = { $gt: after };
    const docs = await this.collection.find(filter, { sort: { _id: 1 }, limit: limit + 1 });
    const more = docs.length > limit;
    const page = more ? docs.slice(0, limit) : docs;
    const assets: EdgeSnapshotAsset[] = page.map((doc) => {
      const secrets = this.registry.get(doc.kind).secretFields;
      return {
        kind: doc.kind,
        accountId: doc.accountId,
        assetId: doc.assetId,
        revision: doc.revision,
        record: secrets?.length ? withoutSecrets(doc.record, secrets) : doc.record,
      };
    });
    return {
      assets,
      next: more ? page[page.length - 1]._id : null,
      position: checkpoint ? `${checkpoint.commit}/${checkpoint.prepare}` : null,
    };
  }
}

function parseRequest(body: unknown): { after?: string; limit: number } {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const { after, limit } = input;
  if (after !== undefined && (typeof after !== 'string' || after.length > 512)) {
    throw ServiceError.invalidField('after', 'isString', "after must be the previous page's next (text)");
  }
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > EDGE_SNAPSHOT_PAGE_MAX)) {
    throw ServiceError.invalidField('limit', 'isInt', `limit must be a whole number from 1 to ${EDGE_SNAPSHOT_PAGE_MAX}`);
  }
  return { after, limit: limit ?? EDGE_SNAPSHOT_PAGE_DEFAULT };
}
