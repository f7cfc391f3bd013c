import { Inject, Injectable } from '@nestjs/common';
import {
  AssetKindDescriptor,
  AssetRequestBody,
  CallerContext,
  DuplicateRequestDto,
  ErrorCodes,
  ID_RULE,
  ServiceError,
  generateAssetId,
  isValidAssetId,
  validateBody,
} from '@funnel/contracts';
import {
  AssetCommand,
  AssetRecord,
  AssetRegistry,
  DuplicateRequest,
  PlannedCopy,
  decideAsset,
  draftDuplicate,
  foldAsset,
  initialAssetState,
  planDuplicateParts,
} from '@funnel/assets-domain';
import { ASSET_REGISTRY } from '../assets.tokens';
import { ClaimTicket, UniqueClaims } from '../unique-claims';
import { AssetRepository } from '../asset-repository';
import { AssetProjector } from '../asset-projector';
import { AssetQueries } from '../asset-queries';
import { DuplicateCompletion } from '../duplicate-completion';
import { RECORDS_PER_TURN, forEachInTurns, nextTurn } from '../turn-taking';
import { AssetWrites } from './asset-writes';
import { RecordChecks, referenceKey } from './record-checks';

/** POST duplicate/: a copy of an asset, with the local assets and children it takes along. */
@Injectable()
export class DuplicateCommand {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly queries: AssetQueries,
    private readonly claims: UniqueClaims,
    private readonly duplicates: DuplicateCompletion,
    private readonly writes: AssetWrites,
    private readonly checks: RecordChecks,
  ) {}

  /**
   * POST duplicate/: a copy of the asset. A copy that takes other assets along (a funnel's local page
   * groups and conditions, a funnel group's funnels, each with its own) is decided first: every copy
   * is checked as a save would be (a copy may name the copies planned before it), and the decision is
   * appended to the copy's stream (a large one after its parts, each its own append); then the copies
   * are created in order, the assets a copy names before it. The process manager completes a decision
   * cut short by a crash (DuplicateCompletion); parts whose decision was never appended are inert.
   */
  async duplicate(kind: AssetKindDescriptor, context: CallerContext, { query, body }: AssetRequestBody): Promise<{ id: string }> {
    const sourceId = query[kind.idField];
    if (sourceId === undefined || sourceId === '')
      throw ServiceError.invalidField(kind.idField, 'required', `query parameter ${kind.idField} is required (the id of the ${kind.kind} to copy)`);
    if (typeof sourceId !== 'string' || !isValidAssetId(sourceId)) {
      throw ServiceError.invalidField(kind.idField, 'isAssetId', `query parameter ${kind.idField} must be a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
    }
    const request = validateBody(DuplicateRequestDto, body);
    const source = (await this.repository.load(kind.kind, context.accountId, sourceId)).state.record;
    if (!source || source.status === 'deleted') throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${sourceId} not found`);
    const newId = generateAssetId();
    const copies = await this.planCopies(kind, context, source, sourceId, request, newId, new Map());
    if (copies.length === 1) {
      const [{ record }] = copies;
      await this.writes.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record, duplicatedFrom: sourceId }));
      return { id: newId };
    }
    // A plan too large for one event is written in parts first; it takes effect with its decision only.
    const { parts, decision } = planDuplicateParts({ duplicatedFrom: sourceId, copies });
    const tickets: ClaimTicket[] = [];
    try {
      await forEachInTurns(
        copies,
        async (copy) => void tickets.push(await this.claims.claimAll(this.registry.get(copy.kind), context, copy.id, copy.record, null)),
        RECORDS_PER_TURN,
      );
      const ref = { kind: kind.kind, id: newId };
      let state = initialAssetState();
      const commands: AssetCommand[] = [...parts.map((part): AssetCommand => ({ type: 'PlanDuplicatePart', part })), { type: 'DecideDuplicate', decision }];
      for (const [revision, command] of commands.entries()) {
        // Each part is an append of up to 256 KiB of JSON: one a turn.
        if (revision > 0) await nextTurn();
        const events = decideAsset(command, state, ref);
        await this.repository.append(kind.kind, context, newId, events, revision - 1);
        state = foldAsset(events, state);
      }
    } catch (error) {
      for (const ticket of tickets) await this.claims.settle(ticket);
      throw error;
    }
    // Decided: from here on the copies are created, now or by the process manager after a crash. Their
    // claims are settled once created; after a crash their tokens are left, and a copy's value not yet
    // in its stored record may be taken over after a minute (the stale-claim rule of UniqueClaims).
    const position = await this.duplicates.complete(context, { kind: kind.kind, id: newId }, copies);
    for (const ticket of tickets) await this.claims.settle(ticket);
    await this.projector.waitFor(position);
    return { id: newId };
  }

  /**
   * Every asset a duplicate of `source` creates, checked as saves (a copy's references may name the
   * copies planned before it, in `planned`): its local assets' copies, the copy, then a copy of each
   * of its live children (a funnel group's funnels), planned the same way into the new parent.
   */
  private async planCopies(
    kind: AssetKindDescriptor,
    context: CallerContext,
    source: AssetRecord,
    sourceId: string,
    request: DuplicateRequest,
    newId: string,
    planned: Map<string, AssetRecord>,
  ): Promise<PlannedCopy[]> {
    // Copying a large funnel's graph takes tens of ms: each copy is drafted, then checked, in a turn of its own.
    if (planned.size > 0) await nextTurn();
    const drafts = draftDuplicate({
      kind,
      source,
      sourceId,
      request: { ...request, bodyUpdates: allowedUpdates(kind, request.bodyUpdates) },
      newId,
      locals: await this.localAssetsOf(kind, context, sourceId),
      remap: this.registry.rules(kind.kind).remapDuplicate,
    });
    const copies: PlannedCopy[] = [];
    for (const draft of drafts) {
      await nextTurn();
      // bodyUpdates may carry anything: the copy must pass the same rules as a saved record. Secrets are copied.
      const dto = validateBody(draft.kind.recordDto, draft.record, 'duplicate');
      const record = await this.checks.prepareRecord(draft.kind, context, dto, null, draft.secretSource, planned);
      record.status = 'active';
      planned.set(referenceKey(draft.kind.kind, draft.id), record);
      copies.push({ kind: draft.kind.kind, id: draft.id, duplicatedFrom: draft.duplicatedFrom, record });
    }
    for (const childKind of this.registry.kinds) {
      if (childKind.parent?.kind !== kind.kind) continue;
      const children = await this.queries.liveByField(childKind.kind, context.accountId, childKind.parent.field, sourceId);
      for (const child of children) {
        const childId = String(child[childKind.idField]);
        // The stored record (secrets encrypted), as a duplicate of the child alone would copy it.
        const stored = (await this.repository.load(childKind.kind, context.accountId, childId)).state.record;
        if (!stored || stored.status === 'deleted') continue;
        const request = { name: String(stored[childKind.nameField]), parentId: newId };
        copies.push(...(await this.planCopies(childKind, context, stored, childId, request, generateAssetId(), planned)));
      }
    }
    return copies;
  }

  /** The live local assets of a record (descriptor `localKinds`: a funnel's page groups and conditions). */
  private async localAssetsOf(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<{ kind: AssetKindDescriptor; record: AssetRecord }[]> {
    const found: { kind: AssetKindDescriptor; record: AssetRecord }[] = [];
    for (const name of kind.localKinds ?? []) {
      const localKind = this.registry.get(name);
      if (!localKind.scopeField) continue;
      for (const record of await this.queries.liveByField(name, context.accountId, localKind.scopeField, id)) found.push({ kind: localKind, record });
    }
    return found;
  }
}

/** The bodyUpdates a duplicate honours: all, or only the kind's allowed fields. */
function allowedUpdates(kind: AssetKindDescriptor, updates: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!updates || !kind.duplicateUpdatableFields) return updates;
  return Object.fromEntries(Object.entries(updates).filter(([field]) => kind.duplicateUpdatableFields!.includes(field)));
}
