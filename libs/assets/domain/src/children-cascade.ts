import { CascadeAction, ErrorCodes, ServiceError } from '@funnel/contracts';
import { AssetCommand, AssetState } from './asset-decider';
import { ArchivedBy, AssetRecord, ChildrenDecision } from './asset-events';

/**
 * What a parent goes through that its children may follow: delete and archive (with the request's
 * decision), and unarchive, which restores exactly the children its archive archived in cascade.
 */
export type ParentOperation = 'delete' | 'archive' | 'unarchive';

export interface ParentMutation {
  cascadeAction?: CascadeAction;
  targetParentID?: string;
}

/**
 * Turns a ParentMutationRequest into what happens to the children. `targetParentID` belongs to `move`
 * only. With no action, delete first moves children to uncategorized (orphan) while archive leaves
 * them alone. Children that require a parent (`childrenNeedParent`: funnels in their funnel group)
 * cannot be orphaned: `orphan` is a 400, and delete with no action leaves them alone.
 */
export function resolveChildrenDecision(
  operation: ParentOperation,
  request: ParentMutation,
  allowedActions: readonly CascadeAction[] = ['cascade', 'move', 'orphan'],
  childrenNeedParent = false,
): ChildrenDecision {
  const { cascadeAction, targetParentID } = request;
  if (cascadeAction !== undefined && !allowedActions.includes(cascadeAction)) {
    throw ServiceError.invalidField('cascadeAction', 'isIn', `cascadeAction ${cascadeAction} is not allowed here`, ErrorCodes.CASCADE_INVALID);
  }
  if (childrenNeedParent && cascadeAction === 'orphan') {
    throw ServiceError.invalidField(
      'cascadeAction',
      'isIn',
      'cascadeAction orphan is not allowed here: the children need a parent (use cascade or move)',
      ErrorCodes.CASCADE_INVALID,
    );
  }
  if (cascadeAction === 'move') {
    if (!targetParentID)
      throw ServiceError.invalidField('targetParentID', 'required', 'targetParentID is required when cascadeAction is move', ErrorCodes.CASCADE_INVALID);
    return { action: 'move', targetParentID };
  }
  if (targetParentID !== undefined) {
    throw ServiceError.invalidField('targetParentID', 'notAllowed', 'targetParentID is only allowed when cascadeAction is move', ErrorCodes.CASCADE_INVALID);
  }
  if (cascadeAction === 'cascade') return { action: 'cascade' };
  if (cascadeAction === 'orphan') return { action: 'orphan' };
  return { action: operation === 'delete' && !childrenNeedParent ? 'orphan' : 'untouched' };
}

/**
 * A move target must exist, must not be deleted, must not be one of the parents being changed, and
 * must be of the same type as each parent (for categories: the same categoryType).
 */
export function checkMoveTarget(options: {
  targetId: string;
  target: AssetRecord | null;
  parents: readonly { id: string; record: AssetRecord }[];
  typeField?: string;
}): void {
  const { targetId, target, parents, typeField } = options;
  if (parents.some((p) => p.id === targetId)) {
    throw ServiceError.invalidField(
      'targetParentID',
      'notAnEntry',
      `targetParentID ${targetId} is one of the entries being changed`,
      ErrorCodes.CASCADE_INVALID,
    );
  }
  if (!target || target.status === 'deleted') {
    throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `target parent ${targetId} not found`);
  }
  if (typeField) {
    const mismatch = parents.find((p) => p.record[typeField] !== target[typeField]);
    if (mismatch) {
      throw ServiceError.invalidField(
        'targetParentID',
        typeField,
        `target parent ${targetId} has ${typeField} ${String(target[typeField])}, entry ${mismatch.id} has ${String(mismatch.record[typeField])}`,
      );
    }
  }
}

/**
 * The command each child receives, or null when children are left alone. `parent`: who archives in
 * cascade, recorded in each child's Archived event so that the parent's unarchive finds it.
 */
export function childCommandFor(operation: ParentOperation, decision: ChildrenDecision, parent?: ArchivedBy): AssetCommand | null {
  switch (decision.action) {
    case 'cascade':
      if (operation === 'delete') return { type: 'DeleteAsset' };
      if (operation === 'unarchive') return { type: 'UnarchiveAsset' };
      return parent ? { type: 'ArchiveAsset', cascadedFrom: parent } : { type: 'ArchiveAsset' };
    case 'move':
      return { type: 'MoveAssetToCategory', idCategory: decision.targetParentID ?? '' };
    case 'orphan':
      return { type: 'MoveAssetToCategory', idCategory: '' };
    case 'untouched':
      return null;
    default: {
      const unknown: never = decision.action;
      throw new Error(`unknown children action ${String(unknown)}`);
    }
  }
}

/**
 * Which children a decision still has to reach: archiving in cascade concerns active children only,
 * unarchiving archived ones only.
 */
export function childStatusesFor(operation: ParentOperation, decision: ChildrenDecision): AssetRecord['status'][] {
  if (operation === 'unarchive') return ['archived'];
  return operation === 'archive' && decision.action === 'cascade' ? ['active'] : ['active', 'archived'];
}

/**
 * Whether a parent's unarchive restores this child: only when the child is archived because that
 * parent's archive archived it in cascade (not when it was archived on its own, before or since).
 */
export function isRestoredBy(child: AssetState, parent: ArchivedBy): boolean {
  return child.record?.status === 'archived' && child.archivedBy?.kind === parent.kind && child.archivedBy.id === parent.id;
}
