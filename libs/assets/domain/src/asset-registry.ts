import { AssetKindDescriptor, ErrorCodes, ServiceError, categoryTypesOf } from '@funnel/contracts';
import { AssetEvent, AssetRecord, assetEventType } from './asset-events';
import { KIND_RULES, type KindRules } from './kinds';

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

  has(kind: string): boolean {
    return this.byKind.has(kind);
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
    return this.kinds.filter((k) => categoryTypesOf(k).includes(categoryType));
  }

  /**
   * Whether assets of a kind can have children that follow its delete, archive and unarchive: a
   * category-like parent (`isParent`), a kind with local assets (`localKinds`), or the `parent` of another kind.
   */
  hasChildren(kind: AssetKindDescriptor): boolean {
    return kind.isParent || !!kind.localKinds?.length || this.kinds.some((c) => c.parent?.kind === kind.kind);
  }

  /** The kind's own rules (none beyond its DTO when it has no module of its own). */
  rules(kind: string): KindRules {
    return KIND_RULES[kind] ?? NO_RULES;
  }

  /** A stored event in today's shape: records written under since-renamed field names are read with the current names. */
  decodeEvent(kind: string, storedType: string, data: Record<string, unknown>): AssetEvent | undefined {
    const descriptor = this.get(kind);
    const type = assetEventType(descriptor.eventPrefix, storedType);
    if (!type) return undefined;
    const renamed = descriptor.renamedFields;
    if (renamed && (type === 'Created' || type === 'Updated')) {
      return { type, data: { ...data, record: upcastRecord(data.record as AssetRecord, renamed) } } as AssetEvent;
    }
    return { type, data } as AssetEvent;
  }
}

const NO_RULES: KindRules = {};

function upcastRecord(record: AssetRecord, renamed: Readonly<Record<string, string>>): AssetRecord {
  let upcast: AssetRecord | undefined;
  for (const [oldName, newName] of Object.entries(renamed)) {
    if (!(oldName in record)) continue;
    upcast ??= { ...record };
    if (!(newName in upcast)) upcast[newName] = upcast[oldName];
    delete upcast[oldName];
  }
  return upcast ?? record;
}
