import { AssetKindDescriptor, categoryTypesOf, isLocal } from '@funnel/contracts';
import { AssetRecord } from './asset-events';

/** Fields a duplicate can never take from bodyUpdates: the service sets them after the merge. */
export const PROTECTED_FIELDS = ['id', 'owner', 'status'] as const;

/**
 * The record of a copy: the source, then the new name (and parent, when given), then bodyUpdates
 * merged over it; finally the protected fields (id, owner, status) set by the service.
 */
export function duplicateRecord(
  kind: AssetKindDescriptor,
  source: AssetRecord,
  request: { name: string; parentId?: string; bodyUpdates?: Record<string, unknown> },
  newId: string,
): AssetRecord {
  const merged: Record<string, unknown> = { ...source, [kind.nameField]: request.name };
  if (request.parentId !== undefined && categoryTypesOf(kind).length > 0) merged.idCategory = request.parentId;
  // A kind held by a parent record (a funnel in its group) is copied into `parentId` when given, else into the same parent.
  if (request.parentId !== undefined && request.parentId !== '' && kind.parent) merged[kind.parent.field] = request.parentId;
  // A copy of a funnel-local asset stays local to the same funnel unless bodyUpdates says otherwise.
  Object.assign(merged, request.bodyUpdates ?? {});
  // A copy made local leaves its source's category (a local asset is in none); a category asked for explicitly is kept, and refused.
  if (isLocal(kind, merged) && request.parentId === undefined && request.bodyUpdates?.idCategory === undefined) merged.idCategory = '';
  for (const field of PROTECTED_FIELDS) delete merged[field];
  for (const field of kind.derivedFields ?? []) delete merged[field];
  merged[kind.idField] = newId;
  merged.status = 'active';
  return merged as AssetRecord;
}
