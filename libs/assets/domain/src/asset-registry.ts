import { AssetKindDescriptor, ErrorCodes, ServiceError } from '@funnel/contracts';
import { AssetEvent, assetEventType } from './asset-events';

export interface AssetStreamId {
  kind: string;
  accountId: string;
  id: string;
}

/**
 * The asset-kind registry: the one table the generic pipeline is driven by. Streams are named
 * `<kind>-<accountId>.<id>`, so two accounts never share a stream and `<kind>-` is the category prefix.
 */
export class AssetRegistry {
  private readonly byKind = new Map<string, AssetKindDescriptor>();

  constructor(readonly kinds: readonly AssetKindDescriptor[]) {
    for (const k of kinds) this.byKind.set(k.kind, k);
  }

  get(kind: string): AssetKindDescriptor {
    const found = this.byKind.get(kind);
    if (!found) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `unknown asset kind ${kind}`);
    return found;
  }

  streamName(kind: string, accountId: string, id: string): string {
    return `${kind}-${accountId}.${id}`;
  }

  parseStreamName(streamName: string): AssetStreamId | undefined {
    const dash = streamName.indexOf('-');
    const dot = streamName.indexOf('.', dash + 1);
    if (dash <= 0 || dot < 0) return undefined;
    const kind = streamName.slice(0, dash);
    if (!this.byKind.has(kind)) return undefined;
    return { kind, accountId: streamName.slice(dash + 1, dot), id: streamName.slice(dot + 1) };
  }

  /** Stream-name prefixes of every asset kind, for log subscriptions. */
  streamPrefixes(): string[] {
    return this.kinds.map((k) => `${k.kind}-`);
  }

  /** Kinds whose assets live in categories of this categoryType. */
  childKindsOf(categoryType: string): AssetKindDescriptor[] {
    return this.kinds.filter((k) => k.categoryType === categoryType);
  }

  decodeEvent(kind: string, storedType: string, data: Record<string, unknown>): AssetEvent | undefined {
    const type = assetEventType(this.get(kind).eventPrefix, storedType);
    return type ? ({ type, data } as AssetEvent) : undefined;
  }
}
