import { ASSET_EVENT_FACTS, AssetEventFact, AssetStatus } from '@funnel/contracts';

/** A full asset record as the API shows it (field names of the kind's JSON schema). */
export type AssetRecord = Record<string, unknown> & { status: AssetStatus; idCategory?: string };

/** What happens to a parent's children (categories: the assets they hold). */
export type ChildrenAction = 'cascade' | 'move' | 'orphan' | 'untouched';
export interface ChildrenDecision {
  action: ChildrenAction;
  /** Set when action is `move`. */
  targetParentID?: string;
}

/** The parent whose archive in cascade archived an asset. */
export interface ArchivedBy {
  kind: string;
  id: string;
}

/** One asset a duplicate creates: its kind, new id, the asset it copies and its record as it will be stored. */
export interface PlannedCopy {
  kind: string;
  id: string;
  duplicatedFrom: string;
  record: AssetRecord;
}

/**
 * A duplicate that creates more than one asset (a funnel with its local page groups and conditions, a
 * funnel group with its funnels), decided before any of them is stored: every copy, in the order
 * they are created (an asset before the copies that name it), with their ids and records fixed, so
 * completing it again after a crash creates the same assets, each once.
 */
export interface DuplicateDecision {
  /** The asset the decision's stream is the copy of. */
  duplicatedFrom: string;
  /**
   * Set when the plan was written in parts (too large for one event): the stream's first `parts`
   * events are its DuplicatePlanned parts 0..parts-1, and `copies` is the last part.
   */
  parts?: number;
  copies: PlannedCopy[];
}

/**
 * One part of a duplicate plan too large for one event: the copies `part` (0-based) holds, in
 * creation order. Parts are inert until the DuplicateDecided that follows them in the stream.
 */
export interface DuplicatePart {
  part: number;
  copies: PlannedCopy[];
}

/**
 * Asset events: past-tense facts. The stored type name is the kind's prefix plus the fact
 * (`VisitorTagArchived`, `CategoryDeleted`), written explicitly, never derived from a class name.
 */
export type AssetEvent =
  | { type: 'Created'; data: { record: AssetRecord; duplicatedFrom?: string } }
  /** First event of a multi-asset duplicate's copy: the copy does not exist yet (no record) until its Created. */
  | { type: 'DuplicateDecided'; data: DuplicateDecision }
  /** A part of a large duplicate's plan, before its DuplicateDecided (no record either). */
  | { type: 'DuplicatePlanned'; data: DuplicatePart }
  | { type: 'Updated'; data: { record: AssetRecord } }
  /**
   * `children`: a parent's decision for its children. `cascadedFrom`: the parent whose archive in
   * cascade archived this asset (an asset archived on its own has none); its unarchive restores it.
   */
  | { type: 'Archived'; data: { children?: ChildrenDecision; cascadedFrom?: ArchivedBy } }
  /** `children` (`cascade`): a parent's unarchive, which restores the children its archive archived. */
  | { type: 'Unarchived'; data: { children?: ChildrenDecision } }
  | { type: 'Deleted'; data: { children?: ChildrenDecision } }
  | { type: 'MovedToCategory'; data: { idCategory: string } };

export type AssetEventType = AssetEvent['type'];
/** Every fact the decider emits, as the contracts list them for subscribers (the compiler keeps the two sets equal). */
export const ASSET_EVENT_TYPES: readonly AssetEventType[] = ASSET_EVENT_FACTS;
type Holds<T extends true> = T;
/** Each event type of the decider is a fact of the contracts (the constant above checks the other way). */
export type EveryAssetEventIsAContractFact = Holds<AssetEventType extends AssetEventFact ? true : false>;
export const ASSET_EVENT_SCHEMA_VERSION = 1;

export function storedEventType(eventPrefix: string, type: AssetEventType): string {
  return `${eventPrefix}${type}`;
}

/** The fact part of a stored type name, or undefined when the name is not one of this kind's events. */
export function assetEventType(eventPrefix: string, storedType: string): AssetEventType | undefined {
  if (!storedType.startsWith(eventPrefix)) return undefined;
  const fact = storedType.slice(eventPrefix.length) as AssetEventType;
  return ASSET_EVENT_TYPES.includes(fact) ? fact : undefined;
}
