import { ASSET_KINDS, type AssetEventMessage, EDGE_SNAPSHOT_KINDS, type EdgeSnapshotAsset } from '@funnel/contracts';
import { type AssetEvent, type AssetRecord, type AssetState, assetEventType, evolveAsset } from '@funnel/assets-domain';
import { comparePositionText } from './positions';

/** One asset that changed in the snapshot. */
export interface SnapshotChange {
  accountId: string;
  kind: string;
  assetId: string;
}

/** What applying one event did. */
export type ApplyOutcome =
  | {
      applied: true;
      change: SnapshotChange;
      /**
       * The event's revision is not the next one of what the snapshot holds (an event of the asset
       * was missed: the stream had to be left, or the relay sent out of order): reload.
       */
      gap: boolean;
    }
  | { applied: false; reason: 'loaded' | 'seen' | 'notRouting' | 'unknownType' };

interface Entry {
  revision: number;
  state: AssetState;
}

const PREFIX_OF = new Map(ASSET_KINDS.map((kind) => [kind.kind, kind.eventPrefix]));
const ROUTING_KINDS = new Set(EDGE_SNAPSHOT_KINDS);

/**
 * Every routing asset of every account, as the asset events leave them: a load (`put`) then the
 * events after it (`apply`). Pure and in memory. Each asset keeps the stream revision it reflects,
 * so an event at or below it (a duplicate, a resend, an event the load already had) changes
 * nothing; a deleted asset stays as a tombstone (status `deleted`), is never answered again, and an
 * older event cannot bring it back. Events at or before the load's position are in the load.
 */
export class AssetSnapshotState {
  /** accountId -> kind -> assetId -> entry. */
  private readonly accounts = new Map<string, Map<string, Map<string, Entry>>>();
  private loadedAt: string | null = null;
  private latest: string | null = null;
  private count = 0;

  /** The position the load reflected (null: loaded from an empty log, or not loaded). */
  get loadPosition(): string | null {
    return this.loadedAt;
  }

  /** The latest position the snapshot reflects (the load's, or a later event's). */
  get position(): string | null {
    return this.latest;
  }

  /** Assets held (tombstones included). */
  get size(): number {
    return this.count;
  }

  /** Sets the position the loaded pages reflect at least; events at or before it are skipped. */
  markLoaded(position: string | null): void {
    this.loadedAt = position;
    if (position !== null && (this.latest === null || comparePositionText(position, this.latest) > 0)) this.latest = position;
  }

  /** Adds a loaded asset (a later revision than held wins). Returns whether it changed the snapshot. */
  put(asset: EdgeSnapshotAsset): boolean {
    if (!ROUTING_KINDS.has(asset.kind)) return false;
    const assets = this.kindMap(asset.accountId, asset.kind);
    const held = assets.get(asset.assetId);
    if (held && held.revision >= asset.revision) return false;
    if (!held) this.count++;
    assets.set(asset.assetId, { revision: asset.revision, state: { record: { ...(asset.record as AssetRecord) } } });
    return true;
  }

  apply(event: AssetEventMessage): ApplyOutcome {
    if (this.loadedAt !== null && comparePositionText(event.position, this.loadedAt) <= 0) return { applied: false, reason: 'loaded' };
    if (!ROUTING_KINDS.has(event.kind)) return { applied: false, reason: 'notRouting' };
    const prefix = PREFIX_OF.get(event.kind);
    const type = prefix === undefined ? undefined : assetEventType(prefix, event.type);
    if (!type) return { applied: false, reason: 'unknownType' };
    const assets = this.kindMap(event.accountId, event.kind);
    const held = assets.get(event.assetId);
    if (held && held.revision >= event.revision) return { applied: false, reason: 'seen' };
    const gap = held ? event.revision !== held.revision + 1 : event.revision !== 0;
    const state = evolveAsset(held?.state ?? { record: null }, { type, data: event.data } as AssetEvent);
    if (!held) this.count++;
    assets.set(event.assetId, { revision: event.revision, state });
    if (this.latest === null || comparePositionText(event.position, this.latest) > 0) this.latest = event.position;
    return { applied: true, change: { accountId: event.accountId, kind: event.kind, assetId: event.assetId }, gap };
  }

  /** The asset's record, unless it is missing or deleted (archived ones are answered: their status says so). */
  get(accountId: string, kind: string, assetId: string): AssetRecord | undefined {
    const record = this.accounts.get(accountId)?.get(kind)?.get(assetId)?.state.record;
    return record && record.status !== 'deleted' ? record : undefined;
  }

  /** The revision held for the asset (tombstones included), or undefined. */
  revisionOf(accountId: string, kind: string, assetId: string): number | undefined {
    return this.accounts.get(accountId)?.get(kind)?.get(assetId)?.revision;
  }

  /** The account's live (not deleted) records of a kind. */
  recordsOf(accountId: string, kind: string): AssetRecord[] {
    const assets = this.accounts.get(accountId)?.get(kind);
    if (!assets) return [];
    const records: AssetRecord[] = [];
    for (const entry of assets.values()) if (entry.state.record && entry.state.record.status !== 'deleted') records.push(entry.state.record);
    return records;
  }

  /** Whether the account has any asset (tombstones included). */
  hasAccount(accountId: string): boolean {
    return this.accounts.has(accountId);
  }

  private kindMap(accountId: string, kind: string): Map<string, Entry> {
    let kinds = this.accounts.get(accountId);
    if (!kinds) this.accounts.set(accountId, (kinds = new Map()));
    let assets = kinds.get(kind);
    if (!assets) kinds.set(kind, (assets = new Map()));
    return assets;
  }
}
