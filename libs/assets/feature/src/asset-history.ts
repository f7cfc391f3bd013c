import { Inject, Injectable } from '@nestjs/common';
import { AssetHistoryEntry, AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError } from '@funnel/contracts';
import { EVENT_STORE, EventStore, RecordedEvent } from '@funnel/eventstore';
import { AssetRecord, AssetRegistry, evolveAsset, initialAssetState, recordChanges } from '@funnel/assets-domain';
import { ASSET_REGISTRY } from './assets.tokens';
import { idParam, intParam } from './query-params';

export const HISTORY_DEFAULT_LIMIT = 50;
export const HISTORY_MAX_LIMIT = 200;

/**
 * `GET <prefix>/history/?<idField>=`: an asset's events, newest first, each with who wrote it and
 * the changes it made to the record (secrets as placeholders), read from the asset's own stream
 * (so always within the caller's account). Paged by `limit` and `beforeRevision`.
 */
@Injectable()
export class AssetHistory {
  constructor(
    @Inject(EVENT_STORE) private readonly eventStore: EventStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
  ) {}

  async history(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetHistoryEntry[]> {
    const id = idParam(query, kind.idField);
    const limit = intParam(query, 'limit', 1, HISTORY_MAX_LIMIT) ?? HISTORY_DEFAULT_LIMIT;
    const beforeRevision = intParam(query, 'beforeRevision', 0, Number.MAX_SAFE_INTEGER);
    const events = await this.eventStore.readStream(this.registry.streamName(kind.kind, context.accountId, id));
    if (!events.length) throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    // Every version is folded (each event's record depends on all before it); only the page's changes are computed.
    const versions: { event: RecordedEvent; before: AssetRecord | null; after: AssetRecord | null }[] = [];
    let state = initialAssetState();
    for (const event of events) {
      const decoded = this.registry.decodeEvent(kind.kind, event.type, event.data);
      const next = decoded ? evolveAsset(state, decoded) : state;
      if (beforeRevision === undefined || event.revision < beforeRevision) versions.push({ event, before: state.record, after: next.record });
      state = next;
    }
    const secretFields = kind.secretFields ?? [];
    return versions
      .slice(-limit)
      .reverse()
      .map(({ event, before, after }) => ({
        revision: event.revision,
        type: event.type,
        occurredAt: typeof event.metadata.occurredAt === 'string' ? event.metadata.occurredAt : event.recordedAt.toISOString(),
        actor: { userId: stringOrNull(event.metadata.actorId), keyId: stringOrNull(event.metadata.keyId) },
        changes: recordChanges(before, after, secretFields),
      }));
  }
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
