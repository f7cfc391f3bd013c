import { AssetStatus } from '@funnel/contracts';

/** A full asset record as the API shows it (field names of the kind's JSON schema). */
export type AssetRecord = Record<string, unknown> & { status: AssetStatus; idCategory?: string };

/** What happens to a parent's children (categories: the assets they hold). */
export type ChildrenAction = 'cascade' | 'move' | 'orphan' | 'untouched';
export interface ChildrenDecision {
  action: ChildrenAction;
  /** Set when action is `move`. */
  targetParentID?: string;
}

/**
 * Asset events: past-tense facts. The stored type name is the kind's prefix plus the fact
 * (`VisitorTagArchived`, `CategoryDeleted`), written explicitly, never derived from a class name.
 */
export type AssetEvent =
  | { type: 'Created'; data: { record: AssetRecord; duplicatedFrom?: string } }
  | { type: 'Updated'; data: { record: AssetRecord } }
  | { type: 'Archived'; data: { children?: ChildrenDecision } }
  | { type: 'Unarchived'; data: Record<string, never> }
  | { type: 'Deleted'; data: { children?: ChildrenDecision } }
  | { type: 'MovedToCategory'; data: { idCategory: string } };

export type AssetEventType = AssetEvent['type'];
export const ASSET_EVENT_TYPES: readonly AssetEventType[] = ['Created', 'Updated', 'Archived', 'Unarchived', 'Deleted', 'MovedToCategory'];
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
