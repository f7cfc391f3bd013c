import { Inject, Injectable } from '@nestjs/common';
import { EVENT_STORE, EventStore, RecordedEvent, positionToString } from '@funnel/eventstore';
import { READ_STORE, ReadStore } from '@funnel/readstore';
import { Projector, guardedReplace, writeGuarded } from '@funnel/projections';
import { AssetRegistry, evolveAsset } from '@funnel/assets-domain';
import { ASSET_REGISTRY } from './assets.tokens';
import { AssetDocument, assetDocumentId, assetsCollection, ensureAssetIndexes } from './asset-documents';

/** The read model's projection: its checkpoint's name in the read store. */
export const ASSET_READ_MODEL_PROJECTION = 'assets-read-model';

/**
 * Projects asset events into the `assets` read model. Idempotent: each document keeps the stream
 * revision it reflects, events at or below it are skipped, and writes are guarded on it, so a replay
 * from zero (embedded store at start) or a concurrent replica yields the same documents.
 */
@Injectable()
export class AssetProjector extends Projector {
  private readonly collection = assetsCollection(this.readStore);

  constructor(
    @Inject(EVENT_STORE) eventStore: EventStore,
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
  ) {
    super({
      name: ASSET_READ_MODEL_PROJECTION,
      description: 'projection',
      eventStore,
      readStore,
      streamNamePrefixes: registry.streamPrefixes(),
      warnWhenLagging: true,
    });
  }

  protected override async createIndexes(): Promise<void> {
    await ensureAssetIndexes(this.collection);
  }

  /** Public for tests that replay batches over the documents. */
  override async project(events: RecordedEvent[]): Promise<void> {
    const located = events.map((e) => {
      const stream = this.registry.parseStreamName(e.streamName);
      return { e, stream, id: stream ? assetDocumentId(stream.kind, stream.accountId, stream.id) : '' };
    });
    const ids = [...new Set(located.filter((l) => l.stream).map((l) => l.id))];
    const docs = new Map<string, AssetDocument>();
    if (ids.length) for (const doc of await this.collection.find({ _id: { $in: ids } })) docs.set(doc._id, doc);
    const touched = new Set<string>();
    for (const { e, stream, id } of located) {
      if (!stream) continue;
      const existing = docs.get(id);
      if (existing && existing.revision >= e.revision) continue;
      const decoded = this.registry.decodeEvent(stream.kind, e.type, e.data);
      const record = decoded ? evolveAsset({ record: existing?.record ?? null }, decoded).record : (existing?.record ?? null);
      if (!record) continue;
      docs.set(id, {
        _id: id,
        kind: stream.kind,
        accountId: stream.accountId,
        assetId: stream.id,
        status: record.status,
        idCategory: typeof record.idCategory === 'string' ? record.idCategory : '',
        revision: e.revision,
        position: positionToString(e.position),
        record,
      });
      touched.add(id);
    }
    await writeGuarded(
      this.collection,
      [...touched].map((id) => guardedReplace(docs.get(id)!)),
    );
  }
}
