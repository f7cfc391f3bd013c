import { ErrorCodes, ServiceError } from '@funnel/contracts';
import { ArchivedBy, AssetEvent, AssetRecord, ChildrenDecision, DuplicateDecision, DuplicatePart } from './asset-events';

/** State of one asset stream, folded from its events. */
export interface AssetState {
  /** The record, or null while the stream does not exist. */
  record: AssetRecord | null;
  /** While a multi-asset duplicate is decided but its copy not yet created: the asset it copies. */
  duplicating?: string;
  /** How many parts of a duplicate plan written in parts the stream holds (none: undefined). */
  planned?: number;
  /** While archived by a parent's archive in cascade: that parent (its unarchive restores the asset). */
  archivedBy?: ArchivedBy;
}

export const initialAssetState = (): AssetState => ({ record: null });

export type AssetCommand =
  | { type: 'CreateAsset'; record: AssetRecord; duplicatedFrom?: string }
  | { type: 'PlanDuplicatePart'; part: DuplicatePart }
  | { type: 'DecideDuplicate'; decision: DuplicateDecision }
  | { type: 'UpdateAsset'; record: AssetRecord }
  /** `cascadedFrom`: the parent whose archive in cascade this is. */
  | { type: 'ArchiveAsset'; children?: ChildrenDecision; cascadedFrom?: ArchivedBy }
  /** `children`: a parent's unarchive restores the children its archive archived (`cascade`). */
  | { type: 'UnarchiveAsset'; children?: ChildrenDecision }
  | { type: 'DeleteAsset'; children?: ChildrenDecision }
  | { type: 'MoveAssetToCategory'; idCategory: string };

/** Identifies the asset in error messages. */
export interface AssetRef {
  kind: string;
  id: string;
}

function notFound(ref: AssetRef): ServiceError {
  return ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${ref.kind} ${ref.id} not found`);
}

function deletedAsset(ref: AssetRef, what: string): ServiceError {
  return ServiceError.conflict(ErrorCodes.ASSET_INVALID_STATE, `${ref.kind} ${ref.id} is deleted and cannot be ${what}`);
}

/**
 * Decides which events a command produces on an asset in the given state. Pure: no I/O, no clock.
 * Repeating an archive, unarchive, delete or move that is already in effect produces no event.
 */
export function decideAsset(command: AssetCommand, state: AssetState, ref: AssetRef): AssetEvent[] {
  const current = state.record;
  switch (command.type) {
    case 'CreateAsset':
      if (current) throw ServiceError.conflict(ErrorCodes.ASSET_EXISTS, `${ref.kind} ${ref.id} already exists`);
      // A decided duplicate's id is taken: only its own completion creates it. Parts of a plan never
      // decided (cut short) take it too: the id is never used.
      if (state.duplicating !== undefined ? command.duplicatedFrom !== state.duplicating : state.planned !== undefined)
        throw ServiceError.conflict(ErrorCodes.ASSET_EXISTS, `${ref.kind} ${ref.id} already exists`);
      return [
        { type: 'Created', data: command.duplicatedFrom ? { record: command.record, duplicatedFrom: command.duplicatedFrom } : { record: command.record } },
      ];
    case 'PlanDuplicatePart':
      // Parts come in order, each after the one before it, on a stream with nothing else.
      if (current || state.duplicating !== undefined || command.part.part !== (state.planned ?? 0))
        throw ServiceError.conflict(ErrorCodes.ASSET_EXISTS, `${ref.kind} ${ref.id} already exists`);
      return [{ type: 'DuplicatePlanned', data: command.part }];
    case 'DecideDuplicate':
      // A decision in parts follows exactly its parts; one without follows nothing.
      if (current || state.duplicating !== undefined || (command.decision.parts ?? 0) !== (state.planned ?? 0))
        throw ServiceError.conflict(ErrorCodes.ASSET_EXISTS, `${ref.kind} ${ref.id} already exists`);
      return [{ type: 'DuplicateDecided', data: command.decision }];
    case 'UpdateAsset':
      if (!current) throw notFound(ref);
      if (current.status === 'deleted') throw deletedAsset(ref, 'updated');
      return [{ type: 'Updated', data: { record: command.record } }];
    case 'ArchiveAsset':
      if (!current) throw notFound(ref);
      if (current.status === 'deleted') throw deletedAsset(ref, 'archived');
      if (current.status === 'archived' && !command.children) return [];
      return [
        {
          type: 'Archived',
          data: { ...(command.children && { children: command.children }), ...(command.cascadedFrom && { cascadedFrom: command.cascadedFrom }) },
        },
      ];
    case 'UnarchiveAsset':
      if (!current) throw notFound(ref);
      if (current.status === 'deleted') throw deletedAsset(ref, 'unarchived');
      return current.status === 'archived' ? [{ type: 'Unarchived', data: command.children ? { children: command.children } : {} }] : [];
    case 'DeleteAsset':
      if (!current) throw notFound(ref);
      if (current.status === 'deleted') return [];
      return [{ type: 'Deleted', data: command.children ? { children: command.children } : {} }];
    case 'MoveAssetToCategory':
      if (!current) throw notFound(ref);
      if (current.status === 'deleted') throw deletedAsset(ref, 'moved');
      return (current.idCategory ?? '') === command.idCategory ? [] : [{ type: 'MovedToCategory', data: { idCategory: command.idCategory } }];
    default: {
      const unknown: never = command;
      throw new Error(`unknown command ${(unknown as { type: string }).type}`);
    }
  }
}

export function evolveAsset(state: AssetState, event: AssetEvent): AssetState {
  const current = state.record;
  switch (event.type) {
    case 'Created':
      return { record: { ...event.data.record } };
    case 'Updated':
      // An archived asset saved while archived stays archived by its parent.
      return event.data.record.status === 'archived' && state.archivedBy
        ? { record: { ...event.data.record }, archivedBy: state.archivedBy }
        : { record: { ...event.data.record } };
    case 'DuplicatePlanned':
      return current ? state : { ...state, planned: (state.planned ?? 0) + 1 };
    case 'DuplicateDecided':
      return current ? state : { ...state, duplicating: event.data.duplicatedFrom };
    case 'Archived':
      if (!current) return state;
      return event.data.cascadedFrom
        ? { record: { ...current, status: 'archived' }, archivedBy: event.data.cascadedFrom }
        : { record: { ...current, status: 'archived' } };
    case 'Unarchived':
      return current ? { record: { ...current, status: 'active' } } : state;
    case 'Deleted':
      return current ? { record: { ...current, status: 'deleted' } } : state;
    case 'MovedToCategory':
      return current ? { ...state, record: { ...current, idCategory: event.data.idCategory } } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

export function foldAsset(events: readonly AssetEvent[], state: AssetState = initialAssetState()): AssetState {
  return events.reduce(evolveAsset, state);
}
