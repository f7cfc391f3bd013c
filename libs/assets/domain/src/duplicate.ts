import { AssetKindDescriptor, categoryTypesOf, generateAssetId, isLocal } from '@funnel/contracts';
import { AssetEvent, AssetRecord, DuplicateDecision, DuplicatePart, PlannedCopy } from './asset-events';
import { secretsAsPlaceholders } from './secret-fields';

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

/** What a duplicate request asks: the copy's name, its parent (category or parent record) and field updates. */
export interface DuplicateRequest {
  name: string;
  parentId?: string;
  bodyUpdates?: Record<string, unknown>;
}

/**
 * One asset a duplicate creates, before the service checks it: `record` is what the copy would be
 * saved as (secrets as placeholders, so it passes the kind's DTO), `secretSource` the stored record
 * whose secrets each placeholder keeps (at the copy's own places).
 */
export interface DuplicateDraft {
  kind: AssetKindDescriptor;
  id: string;
  duplicatedFrom: string;
  record: AssetRecord;
  secretSource: AssetRecord;
}

/**
 * The assets a duplicate of `source` creates, in the order they are to be created: a copy of each of
 * its local assets (descriptor `localKinds`: a new id from `nextId`, local to the copy), then the copy
 * itself (id `newId`), made its own by `remap` (the kind's remapDuplicate) with the local copies' ids
 * put in place of the originals'. A unique value the copy would share gets `-` and 5 random
 * characters, unless bodyUpdates names one. Pure: ids come from `nextId`.
 */
export function draftDuplicate(options: {
  kind: AssetKindDescriptor;
  source: AssetRecord;
  sourceId: string;
  request: DuplicateRequest;
  newId: string;
  locals?: readonly { kind: AssetKindDescriptor; record: AssetRecord }[];
  remap?: (copy: AssetRecord, idMap: ReadonlyMap<string, string>) => AssetRecord;
  nextId?: () => string;
}): DuplicateDraft[] {
  const { kind, source, sourceId, request, newId, locals = [], remap, nextId = generateAssetId } = options;
  const drafts: DuplicateDraft[] = locals.map(({ kind: localKind, record: local }) => {
    const id = nextId();
    const copy = duplicateRecord(localKind, local, { name: String(local[localKind.nameField]), bodyUpdates: { [localKind.scopeField!]: newId } }, id);
    return {
      kind: localKind,
      id,
      duplicatedFrom: String(local[localKind.idField]),
      record: secretsAsPlaceholders(copy, localKind.secretFields ?? []),
      secretSource: local,
    };
  });
  const idMap = new Map(drafts.map((d) => [d.duplicatedFrom, d.id]));
  const copied = duplicateRecord(kind, source, request, newId);
  const remapped = remap ? remap(copied, idMap) : copied;
  const record = secretsAsPlaceholders(remapped, kind.secretFields ?? []);
  for (const { field, maxLength } of kind.uniqueFields ?? []) {
    const value = source[field];
    if (request.bodyUpdates?.[field] !== undefined || typeof value !== 'string') continue;
    const suffix = `-${nextId().slice(-5)}`;
    record[field] = `${maxLength ? value.slice(0, maxLength - suffix.length) : value}${suffix}`;
  }
  // A placeholder keeps the source's secret; a remapped copy's are at its own places (a funnel's new node ids).
  drafts.push({ kind, id: newId, duplicatedFrom: sourceId, record, secretSource: remap ? remapped : source });
  return drafts;
}

/**
 * Largest serialized copies (UTF-8 JSON bytes) one event of a duplicate's plan holds: well under
 * EventStoreDB's default largest append (MaxAppendSize, 1 MiB), with room for a copy larger than it.
 */
export const DUPLICATE_PART_BYTES = 256 * 1024;

/**
 * A duplicate's plan as it is written: one DuplicateDecided holding every copy when they fit in
 * `partBytes`; else parts (DuplicatePlanned, each up to `partBytes` of copies in order, at least one
 * copy) and a DuplicateDecided naming how many, holding the last part. A copy larger than `partBytes`
 * has a part of its own.
 */
export function planDuplicateParts(
  plan: { duplicatedFrom: string; copies: PlannedCopy[] },
  partBytes = DUPLICATE_PART_BYTES,
): { parts: DuplicatePart[]; decision: DuplicateDecision } {
  const groups: PlannedCopy[][] = [[]];
  let size = 0;
  for (const copy of plan.copies) {
    const bytes = Buffer.byteLength(JSON.stringify(copy));
    const current = groups[groups.length - 1];
    if (current.length > 0 && size + bytes > partBytes) {
      groups.push([copy]);
      size = bytes;
    } else {
      current.push(copy);
      size += bytes;
    }
  }
  const last = groups.pop()!;
  if (!groups.length) return { parts: [], decision: { duplicatedFrom: plan.duplicatedFrom, copies: last } };
  return {
    parts: groups.map((copies, part) => ({ part, copies })),
    decision: { duplicatedFrom: plan.duplicatedFrom, parts: groups.length, copies: last },
  };
}

/**
 * Every copy of a decision, in creation order: its parts' copies (`planned`: the first events of its
 * stream, which must be its DuplicatePlanned parts 0..parts-1), then its own. Throws when the stream
 * does not hold the parts the decision names (a log that was not written by a duplicate).
 */
export function copiesOfDecision(decision: DuplicateDecision, planned: readonly AssetEvent[] = []): PlannedCopy[] {
  const parts = decision.parts ?? 0;
  if (parts === 0) return decision.copies;
  const copies: PlannedCopy[] = [];
  for (let part = 0; part < parts; part++) {
    const event = planned[part];
    if (event?.type !== 'DuplicatePlanned' || event.data.part !== part)
      throw new Error(`a duplicate decided in ${parts} parts lacks part ${part} (found ${event ? event.type : 'nothing'})`);
    copies.push(...event.data.copies);
  }
  return [...copies, ...decision.copies];
}
