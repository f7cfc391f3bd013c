import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ASSET_KINDS, generateAssetId } from '@funnel/contracts';
import { SqliteEventStore } from '@funnel/eventstore';
import { EmbeddedReadStore } from '@funnel/readstore';
import { AssetRegistry } from '@funnel/assets-domain';
import { AssetProjector } from '@funnel/assets-feature';

/**
 * Rebuilds the asset read model from `events` events (what standalone mode does at every start) and
 * returns events per second. 5 events per asset: created, updated, archived, unarchived, moved.
 */
export async function replayRate(events = 100_000): Promise<{ eventsPerSecond: number; seconds: number; documents: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'funnel-replay-'));
  try {
    const store = new SqliteEventStore({ filename: join(dir, 'events.sqlite') });
    const registry = new AssetRegistry(ASSET_KINDS);
    const accountId = generateAssetId();
    const meta = { accountId, schemaVersion: 1, occurredAt: new Date().toISOString() };
    for (let i = 0; i < events / 5; i++) {
      const idTag = generateAssetId();
      const record = { idTag, tagName: `tag ${i}`, status: 'active', idCategory: '', color: '#00ff00' };
      await store.append(
        registry.streamName('visitortag', accountId, idTag),
        [
          { type: 'VisitorTagCreated', data: { record }, metadata: meta },
          { type: 'VisitorTagUpdated', data: { record: { ...record, tagName: `tag ${i} b` } }, metadata: meta },
          { type: 'VisitorTagArchived', data: {}, metadata: meta },
          { type: 'VisitorTagUnarchived', data: {}, metadata: meta },
          { type: 'VisitorTagMovedToCategory', data: { idCategory: '' }, metadata: meta },
        ],
        { expectedRevision: 'no_stream' },
      );
    }
    const readStore = new EmbeddedReadStore();
    const projector = new AssetProjector(store, readStore, registry);
    const started = process.hrtime.bigint();
    await projector.start();
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const documents = await readStore.collection('assets').countDocuments({});
    await projector.onApplicationShutdown();
    await store.close();
    return { eventsPerSecond: events / seconds, seconds, documents };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  void replayRate().then((r) => console.log(`replay: ${Math.round(r.eventsPerSecond)} events/s (${r.seconds.toFixed(2)} s, ${r.documents} documents)`));
}
