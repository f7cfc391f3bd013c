import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ParentMutationRequestDto, StringListDto, validateBody } from '@funnel/contracts';
import { GlobalPosition, START_POSITION, comparePositions } from '@funnel/eventstore';
import { AssetCommand, AssetRegistry, ChildrenDecision, ParentOperation, checkMoveTarget, decideAsset, resolveChildrenDecision } from '@funnel/assets-domain';
import { ASSET_REGISTRY } from '../assets.tokens';
import { UniqueClaims } from '../unique-claims';
import { AssetRepository, assertRevision } from '../asset-repository';
import { AssetProjector } from '../asset-projector';
import { ChildrenCascade } from '../children-cascade';
import { forEachInTurns, mapInTurns } from '../turn-taking';
import { AssetWrites } from './asset-writes';
import { ifMatchOf, withLegacyIdFallback } from './request-parts';

/** The command a parent operation gives the parent itself (carrying the children decision). */
const PARENT_COMMAND = { delete: 'DeleteAsset', archive: 'ArchiveAsset', unarchive: 'UnarchiveAsset' } as const satisfies Record<
  ParentOperation,
  AssetCommand['type']
>;

/**
 * PUT archive/ and unarchive/, DELETE delete/: of one asset, or of a parent with its children (a
 * category's, a funnel group's funnels, a funnel's local assets), completed by the children cascade.
 */
@Injectable()
export class ArchiveDeleteCommands {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly cascade: ChildrenCascade,
    private readonly claims: UniqueClaims,
    private readonly writes: AssetWrites,
  ) {}

  async archive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    if (kind.isParent) return this.mutateParents(kind, context, 'archive', request);
    const { entries } = validateBody(StringListDto, request.body);
    const ifMatch = ifMatchOf(request, entries);
    if (kind.localKinds?.length) return this.applyChildrenDecision(kind, context, 'archive', entries, { action: 'cascade' }, ifMatch);
    await this.writes.decideAndAppend(kind, context, entries, () => ({ type: 'ArchiveAsset' }), ifMatch);
  }

  /**
   * PUT unarchive/: back to active. A parent (a category, a funnel group, a funnel with its local
   * assets) restores the children its archive archived in cascade, as its archive's cascade is completed.
   */
  async unarchive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    const { entries } = validateBody(StringListDto, request.body);
    const ifMatch = ifMatchOf(request, entries);
    if (this.registry.hasChildren(kind)) return this.applyChildrenDecision(kind, context, 'unarchive', entries, { action: 'cascade' }, ifMatch);
    await this.writes.decideAndAppend(kind, context, entries, () => ({ type: 'UnarchiveAsset' }), ifMatch);
  }

  async delete(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    if (kind.isParent) return this.mutateParents(kind, context, 'delete', request);
    const { entries } = validateBody(StringListDto, withLegacyIdFallback(kind, request));
    const ifMatch = ifMatchOf(request, entries);
    if (kind.localKinds?.length) return this.applyChildrenDecision(kind, context, 'delete', entries, { action: 'cascade' }, ifMatch);
    const decided = await this.writes.decideAll(kind, context, entries, () => ({ type: 'DeleteAsset' }), ifMatch);
    try {
      await this.writes.appendDecided(kind, context, decided, ifMatch !== undefined);
    } finally {
      // A deleted asset gives its unique values back (unless a save of it is under way); one not deleted keeps them.
      await forEachInTurns(decided, (d) => this.claims.settleValuesOf(kind, context, d.id, d.before ?? {}));
    }
  }

  /**
   * Delete or archive parents (categories) with a ParentMutationRequest. Each parent's event carries
   * the children decision; the cascade then completes the children (and would complete them after a
   * crash, from the log).
   */
  private async mutateParents(kind: AssetKindDescriptor, context: CallerContext, operation: ParentOperation, request: AssetRequestBody): Promise<void> {
    const body = operation === 'delete' ? withLegacyIdFallback(kind, request) : request.body;
    const mutation = validateBody(ParentMutationRequestDto, body);
    // Children held by a parent field (funnels in their group) need a parent: they cannot be orphaned.
    const childrenNeedParent = this.registry.kinds.some((k) => k.parent?.kind === kind.kind);
    const decision = resolveChildrenDecision(operation, mutation, undefined, childrenNeedParent);
    await this.applyChildrenDecision(kind, context, operation, mutation.entries, decision, ifMatchOf(request, mutation.entries));
  }

  /**
   * Appends each parent's delete, archive or unarchive carrying the children decision, then completes it (the
   * process manager would complete it after a crash, from the log). A record with local assets
   * (a funnel) is a parent of them, always with `cascade`.
   */
  private async applyChildrenDecision(
    kind: AssetKindDescriptor,
    context: CallerContext,
    operation: ParentOperation,
    ids: string[],
    decision: ChildrenDecision,
    ifMatch?: number,
  ): Promise<void> {
    const entries = [...new Set(ids)];
    const loaded = await mapInTurns(entries, async (id) => ({ id, ...(await this.repository.load(kind.kind, context.accountId, id)) }));
    for (const { id, revision } of loaded) assertRevision(kind.kind, id, revision, ifMatch);
    if (decision.action === 'move') {
      const targetId = decision.targetParentID!;
      const target = (await this.repository.load(kind.kind, context.accountId, targetId)).state.record;
      const parents = loaded.filter((l) => l.state.record).map((l) => ({ id: l.id, record: l.state.record! }));
      checkMoveTarget({ targetId, target, parents, typeField: kind.categoryTypeField });
    }
    const command: AssetCommand = { type: PARENT_COMMAND[operation], children: decision };
    const decided = loaded.map((l) => ({ id: l.id, revision: l.revision, events: decideAsset(command, l.state, { kind: kind.kind, id: l.id }) }));
    const appended = await this.writes.appendAll(kind, context, decided, ifMatch !== undefined);
    let last: GlobalPosition = START_POSITION;
    for (const { id, position } of appended) {
      const record = loaded.find((l) => l.id === id)!.state.record!;
      const reached = await this.cascade.complete({
        parentKind: kind,
        accountId: context.accountId,
        parentId: id,
        parent: record,
        operation,
        decision,
        decidedAt: position,
        context,
      });
      if (comparePositions(reached, last) > 0) last = reached;
      if (comparePositions(position, last) > 0) last = position;
    }
    await this.projector.waitFor(last);
  }
}
