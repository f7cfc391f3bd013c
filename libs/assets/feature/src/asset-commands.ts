import { RECORDS_PER_TURN, forEachInTurns, mapInTurns, nextTurn } from './turn-taking';
import { Inject, Injectable } from '@nestjs/common';
import {
  AssetKindDescriptor,
  AssetRequestBody,
  CallerContext,
  DuplicateRequestDto,
  ErrorCodes,
  ID_RULE,
  MoveCategoryRequestDto,
  ParentMutationRequestDto,
  ServiceError,
  StringListDto,
  categoryTypeOfRecord,
  categoryTypesOf,
  generateAssetId,
  isLocal,
  isValidAssetId,
  validateBody,
} from '@funnel/contracts';
import { GlobalPosition, START_POSITION, comparePositions } from '@funnel/eventstore';
import {
  AssetCommand,
  AssetEvent,
  AssetRecord,
  AssetRegistry,
  ParentOperation,
  ChildrenDecision,
  checkMoveTarget,
  decideAsset,
  draftDuplicate,
  DuplicateRequest,
  foldAsset,
  initialAssetState,
  PlannedCopy,
  planDuplicateParts,
  resolveChildrenDecision,
  SecretCipher,
  applySecretWrites,
  AssetReference,
  FieldProblem,
  isInReferenceScope,
} from '@funnel/assets-domain';
import { ASSET_REGISTRY, SECRET_CIPHER } from './assets.tokens';
import { AssetActions, KindActionAssets } from './asset-actions';
import { ClaimTicket, UniqueClaims } from './unique-claims';
import { AssetRepository, LoadedAsset, assertRevision, revisionMismatch } from './asset-repository';
import { ifMatchRevision } from './query-params';
import { AssetProjector } from './asset-projector';
import { AssetQueries } from './asset-queries';
import { ChildrenCascade } from './children-cascade';
import { DuplicateCompletion } from './duplicate-completion';

/** The command a parent operation gives the parent itself (carrying the children decision). */
const PARENT_COMMAND = { delete: 'DeleteAsset', archive: 'ArchiveAsset', unarchive: 'UnarchiveAsset' } as const satisfies Record<
  ParentOperation,
  AssetCommand['type']
>;

interface Decided {
  id: string;
  events: AssetEvent[];
  revision: number;
}

/**
 * Write side of every asset kind: validate, load the stream, decide, append with the expected
 * revision, then answer once the read model shows the write (read-your-writes).
 */
@Injectable()
export class AssetCommands implements KindActionAssets {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly queries: AssetQueries,
    private readonly cascade: ChildrenCascade,
    private readonly claims: UniqueClaims,
    private readonly actions: AssetActions,
    private readonly duplicates: DuplicateCompletion,
    @Inject(SECRET_CIPHER) private readonly secrets: SecretCipher,
  ) {}

  /** POST save/: creates (409 when the id exists); an upsert kind's save creates or updates. */
  async create(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    if (kind.upsert) return this.upsert(kind, context, request);
    const record = await this.prepareRecord(kind, context, validateBody(kind.recordDto, withWriteAliases(kind, request.body)), null);
    await this.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record }));
    return this.saveAnswer(kind, context, String(record[kind.idField]));
  }

  /** PUT save/: updates (404 when the id does not exist); an upsert kind's save creates or updates. */
  async update(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    if (kind.upsert) return this.upsert(kind, context, request);
    const dto = validateBody(kind.recordDto, withWriteAliases(kind, request.body)) as Record<string, unknown>;
    await this.updateExisting(kind, context, String(dto[kind.idField]), dto, true, ifMatchRevision(request.headers));
    return this.saveAnswer(kind, context, String(dto[kind.idField]));
  }

  /** What save answers: nothing, or the saved record as find/byId shows it (descriptor `saveAnswersRecord`). */
  private async saveAnswer(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<unknown> {
    if (!kind.saveAnswersRecord) return undefined;
    // The record with its revision: the gateway answers the revision as the ETag.
    return this.queries.findById(kind, context, { query: { [kind.idField]: id }, body: undefined });
  }

  /**
   * PUT move/: moves assets to another parent (descriptor `parent`: a funnel to another funnel group),
   * body `{ entries, <parent field> }`. The parent must exist and not be deleted; every entry is
   * checked first, then each is updated with the new parent.
   */
  async move(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    const parent = kind.parent;
    if (!parent) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no parent to move to`);
    const body = request.body;
    const { entries } = validateBody(StringListDto, body);
    const ifMatch = ifMatchOf(request, entries);
    const target = (body as Record<string, unknown>)[parent.field];
    if (typeof target !== 'string' || !isValidAssetId(target)) {
      throw ServiceError.invalidField(parent.field, 'isAssetId', `${parent.field} must be a valid id (${ID_RULE})`, ErrorCodes.INVALID_ID);
    }
    const record = await this.queries.current(parent.kind, context.accountId, target);
    if (!record || record.status === 'deleted')
      throw ServiceError.invalidField(parent.field, 'exists', `${parent.field}: ${parent.kind} ${target} does not exist`);
    const loaded = await mapInTurns([...new Set(entries)], async (id) => ({ id, ...(await this.repository.load(kind.kind, context.accountId, id)) }));
    for (const { id, revision } of loaded) assertRevision(kind.kind, id, revision, ifMatch);
    const decided: Decided[] = loaded.map(({ id, state, revision }) => {
      const moved = state.record ? { ...state.record, [parent.field]: target } : state.record;
      return { id, revision, events: decideAsset({ type: 'UpdateAsset', record: moved as AssetRecord }, state, { kind: kind.kind, id }) };
    });
    const appended = await this.appendAll(kind, context, decided, ifMatch !== undefined);
    if (appended.length) await this.projector.waitFor(appended[appended.length - 1].position);
  }

  /** Save of an upsert kind: a record without an id gets one (answered as `{ <idField> }`); an existing id is updated. */
  private async upsert(kind: AssetKindDescriptor, context: CallerContext, { body, headers }: AssetRequestBody): Promise<unknown> {
    const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[kind.idField] : undefined;
    const id = given === undefined || given === null || given === '' ? generateAssetId() : given;
    const dto = validateBody(kind.recordDto, { ...(withWriteAliases(kind, body) as object), [kind.idField]: id }) as Record<string, unknown>;
    const existing = await this.updateExisting(kind, context, String(id), dto, false, ifMatchRevision(headers));
    if (!existing) {
      const record = await this.prepareRecord(kind, context, dto, null);
      await this.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record }));
    }
    return given === id ? undefined : { [kind.idField]: id };
  }

  /** Updates asset `id` from a validated record; false when it does not exist (a 404 when `required`). `ifMatch`: the revision it must be at. */
  private async updateExisting(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    dto: Record<string, unknown>,
    required: boolean,
    ifMatch?: number,
  ): Promise<boolean> {
    const loaded = await this.repository.load(kind.kind, context.accountId, id);
    const current = loaded.state.record;
    if (!current) {
      if (required) throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
      // An upsert's If-Match names a revision of an asset that does not exist: nothing to match.
      if (ifMatch !== undefined) throw revisionMismatch(kind.kind, id, -1);
      return false;
    }
    assertRevision(kind.kind, id, loaded.revision, ifMatch);
    // Checked first: a changed type would otherwise show as the rules and references of the other type failing.
    for (const field of kind.immutableFields ?? []) {
      if (dto[field] !== current[field]) throw ServiceError.invalidField(field, 'immutable', `${field} cannot be changed`);
    }
    const record = await this.prepareRecord(kind, context, dto, current);
    await this.appendUpdate(kind, context, id, loaded, record, ifMatch !== undefined);
    return true;
  }

  /** Decides the update of a loaded asset to `record`, claims its unique values and appends at the loaded revision (`conditional`: If-Match). */
  private async appendUpdate(
    kind: AssetKindDescriptor,
    context: CallerContext,
    id: string,
    loaded: LoadedAsset,
    record: AssetRecord,
    conditional = false,
  ): Promise<void> {
    const current = loaded.state.record;
    const events = decideAsset({ type: 'UpdateAsset', record }, loaded.state, { kind: kind.kind, id });
    const ticket = await this.claims.claimAll(kind, context, id, record, current);
    let result;
    try {
      result = await this.repository.append(kind.kind, context, id, events, loaded.revision, conditional);
    } finally {
      // Saved or not: the values it claimed are held by the stored record or free, as are those it gave up.
      await this.claims.settle(ticket);
    }
    await this.projector.waitFor(result.position);
  }

  /** For kind actions (see KindActionAssets): the asset as stored, from its stream. */
  async stored(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<AssetRecord> {
    return (await this.loadLive(kind, context, id)).state.record!;
  }

  /** For kind actions (see KindActionAssets): an update by the service's own change of the stored record. */
  async updateWith(kind: AssetKindDescriptor, context: CallerContext, id: string, change: (current: AssetRecord) => AssetRecord): Promise<AssetRecord> {
    const loaded = await this.loadLive(kind, context, id);
    const record = change(loaded.state.record!);
    await this.appendUpdate(kind, context, id, loaded, record);
    return record;
  }

  private async loadLive(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<LoadedAsset> {
    const loaded = await this.repository.load(kind.kind, context.accountId, id);
    if (!loaded.state.record || loaded.state.record.status === 'deleted')
      throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    return loaded;
  }

  /** Creates one asset, claiming its unique values first (settled when the create ends: released when it failed). */
  private async appendNew(kind: AssetKindDescriptor, context: CallerContext, record: AssetRecord, command: () => AssetCommand): Promise<void> {
    const id = String(record[kind.idField]);
    const ticket = await this.claims.claimAll(kind, context, id, record, null);
    try {
      await this.decideAndAppend(kind, context, [id], command);
    } finally {
      await this.claims.settle(ticket);
    }
  }

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
      await this.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record, duplicatedFrom: sourceId }));
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
      const record = await this.prepareRecord(draft.kind, context, dto, null, draft.secretSource, planned);
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

  async archive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    if (kind.isParent) return this.mutateParents(kind, context, 'archive', request);
    const { entries } = validateBody(StringListDto, request.body);
    const ifMatch = ifMatchOf(request, entries);
    if (kind.localKinds?.length) return this.applyChildrenDecision(kind, context, 'archive', entries, { action: 'cascade' }, ifMatch);
    await this.decideAndAppend(kind, context, entries, () => ({ type: 'ArchiveAsset' }), ifMatch);
  }

  async delete(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    if (kind.isParent) return this.mutateParents(kind, context, 'delete', request);
    const { entries } = validateBody(StringListDto, this.withLegacyIdFallback(kind, request));
    const ifMatch = ifMatchOf(request, entries);
    if (kind.localKinds?.length) return this.applyChildrenDecision(kind, context, 'delete', entries, { action: 'cascade' }, ifMatch);
    const decided = await this.decideAll(kind, context, entries, () => ({ type: 'DeleteAsset' }), ifMatch);
    try {
      await this.appendDecided(kind, context, decided, ifMatch !== undefined);
    } finally {
      // A deleted asset gives its unique values back (unless a save of it is under way); one not deleted keeps them.
      await forEachInTurns(decided, (d) => this.claims.settleValuesOf(kind, context, d.id, d.before ?? {}));
    }
  }

  /**
   * POST validate/: a record checked as save would check it, and more, without storing it:
   * `{ valid, errors, warnings }`. `errors` are save's 400 details (the DTO's; else the kind's
   * check and references together); `warnings` are the kind's (KindRules.warnings) for a record
   * without errors of shape. Reads only.
   */
  async validate(
    kind: AssetKindDescriptor,
    context: CallerContext,
    { body }: AssetRequestBody,
  ): Promise<{ valid: boolean; errors: FieldProblem[]; warnings: FieldProblem[] }> {
    const rules = this.registry.rules(kind.kind);
    if (!rules.warnings) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no validate`);
    let record: AssetRecord;
    try {
      record = this.toRecord(kind, validateBody(kind.recordDto, withWriteAliases(kind, body)), null);
    } catch (error) {
      if (!(error instanceof ServiceError) || error.status !== 400) throw error;
      return { valid: false, errors: problemsOf(error), warnings: [] };
    }
    const checked = rules.check?.(record) ?? [];
    if (rules.normalize && !checked.length) record = rules.normalize(record, null);
    const errors = [...checked, ...(await this.referenceProblems(kind, context, record))];
    const warnings = checked.length ? [] : await rules.warnings(record, (of, ids) => this.queries.currentMany(of, context.accountId, ids));
    return { valid: errors.length === 0, errors, warnings };
  }

  /** A kind's own action (a webhook config's signing secret, its test delivery). */
  async secret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'secret', context, request, this);
  }

  async rotateSecret(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'rotateSecret', context, request, this);
  }

  async test(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    return this.actions.run(kind, 'test', context, request, this);
  }

  /**
   * PUT unarchive/: back to active. A parent (a category, a funnel group, a funnel with its local
   * assets) restores the children its archive archived in cascade, as its archive's cascade is completed.
   */
  async unarchive(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    const { entries } = validateBody(StringListDto, request.body);
    const ifMatch = ifMatchOf(request, entries);
    if (this.registry.hasChildren(kind)) return this.applyChildrenDecision(kind, context, 'unarchive', entries, { action: 'cascade' }, ifMatch);
    await this.decideAndAppend(kind, context, entries, () => ({ type: 'UnarchiveAsset' }), ifMatch);
  }

  async moveCategory(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<void> {
    const { entries, idCategory } = validateBody(MoveCategoryRequestDto, request.body);
    const ifMatch = ifMatchOf(request, entries);
    if (categoryTypesOf(kind).length === 0) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${kind.kind} assets are not kept in categories`);
    // Each entry is checked against the category: its type may depend on the entry (a page's pageType).
    const records = await mapInTurns(entries, (id) => this.queries.current(kind.kind, context.accountId, id));
    // A funnel-local asset is not category-managed: it is never moved, not even to uncategorized.
    const local = records.findIndex((record) => record !== null && isLocal(kind, record));
    if (local >= 0) {
      const field = `entries[${local}]`;
      throw ServiceError.invalidField(
        field,
        'notAllowed',
        `${field}: ${kind.kind} ${entries[local]} is local to a funnel (${kind.scopeField} is set) and is not kept in categories`,
      );
    }
    for (const record of records) if (record) await this.checkCategoryReference(kind, context, record, idCategory);
    await this.decideAndAppend(kind, context, entries, () => ({ type: 'MoveAssetToCategory', idCategory }), ifMatch);
  }

  /**
   * Delete or archive parents (categories) with a ParentMutationRequest. Each parent's event carries
   * the children decision; the cascade then completes the children (and would complete them after a
   * crash, from the log).
   */
  private async mutateParents(kind: AssetKindDescriptor, context: CallerContext, operation: ParentOperation, request: AssetRequestBody): Promise<void> {
    const body = operation === 'delete' ? this.withLegacyIdFallback(kind, request) : request.body;
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
    const appended = await this.appendAll(kind, context, decided, ifMatch !== undefined);
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

  /** Legacy single-id query fallback of delete endpoints: `?<idField>=X` with no body means entries [X]. */
  private withLegacyIdFallback(kind: AssetKindDescriptor, { query, body }: AssetRequestBody): unknown {
    const legacyId = query[kind.idField];
    const emptyBody = body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body as object).length === 0);
    if (emptyBody && typeof legacyId === 'string') return { entries: [legacyId] };
    return body;
  }

  /**
   * Decides for every id first (any failure rejects the whole request, nothing appended), then appends.
   * `ifMatch`: the revision the (one) asset must be at, checked on load and again by the append.
   */
  private async decideAndAppend(
    kind: AssetKindDescriptor,
    context: CallerContext,
    ids: string[],
    command: () => AssetCommand,
    ifMatch?: number,
  ): Promise<void> {
    await this.appendDecided(kind, context, await this.decideAll(kind, context, ids, command, ifMatch), ifMatch !== undefined);
  }

  /** Loads and decides for every id (`before`: its record as loaded); any failure rejects them all. */
  private async decideAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    ids: string[],
    command: () => AssetCommand,
    ifMatch?: number,
  ): Promise<(Decided & { before: AssetRecord | null })[]> {
    return mapInTurns([...new Set(ids)], async (id) => {
      const loaded = await this.repository.load(kind.kind, context.accountId, id);
      assertRevision(kind.kind, id, loaded.revision, ifMatch);
      return { id, revision: loaded.revision, before: loaded.state.record, events: decideAsset(command(), loaded.state, { kind: kind.kind, id }) };
    });
  }

  /** Appends decided events, then waits for the read model to show the last. */
  private async appendDecided(kind: AssetKindDescriptor, context: CallerContext, decided: Decided[], conditional: boolean): Promise<void> {
    const appended = await this.appendAll(kind, context, decided, conditional);
    if (appended.length) await this.projector.waitFor(appended[appended.length - 1].position);
  }

  private async appendAll(
    kind: AssetKindDescriptor,
    context: CallerContext,
    decided: Decided[],
    conditional = false,
  ): Promise<{ id: string; position: GlobalPosition }[]> {
    const appended: { id: string; position: GlobalPosition }[] = [];
    await forEachInTurns(
      decided.filter((d) => d.events.length > 0),
      async (d) => {
        const result = await this.repository.append(kind.kind, context, d.id, d.events, d.revision, conditional);
        appended.push({ id: d.id, position: result.position });
      },
    );
    return appended;
  }

  /**
   * A record as it will be stored, with every rule checked: the DTO's fields only (derived ones
   * dropped), placement kept from the current record when left out, the funnel-local scope rule,
   * the kind's own rules, its category and its references. Throws a 400 naming the fields otherwise.
   */
  private async prepareRecord(
    kind: AssetKindDescriptor,
    context: CallerContext,
    dto: object,
    current: AssetRecord | null,
    secretSource: AssetRecord | null = current,
    planned?: ReadonlyMap<string, AssetRecord>,
  ): Promise<AssetRecord> {
    let record = this.toRecord(kind, dto, current);
    const rules = this.registry.rules(kind.kind);
    const problems = rules.check?.(record) ?? [];
    if (problems.length) {
      // A kind whose bad references are part of its check's error (a funnel's FUNNEL.INVALID) lists both, as validate does.
      if (rules.referenceCode !== undefined && rules.referenceCode === rules.checkCode)
        problems.push(...(await this.referenceProblems(kind, context, record, planned)));
      throw ServiceError.badRequest(rules.checkCode ?? ErrorCodes.VALIDATION, `invalid ${kind.kind}: ${problems[0].message}`, problems);
    }
    if (rules.normalize) record = rules.normalize(record, current);
    record = applySecretWrites(record, kind.secretFields ?? [], secretSource, this.secrets);
    if (!current || record.idCategory !== current.idCategory) await this.checkCategoryReference(kind, context, record, record.idCategory);
    await this.checkReferences(kind, context, record, planned);
    return record;
  }

  /** A record as stored: validated fields only, defaults applied, derived fields dropped. */
  private toRecord(kind: AssetKindDescriptor, dto: object, current: AssetRecord | null): AssetRecord {
    const record: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(dto)) if (value !== undefined) record[key] = value;
    for (const field of kind.derivedFields ?? []) delete record[field];
    if (record.status === 'deleted') throw ServiceError.invalidField('status', 'isIn', 'status deleted is set by the delete endpoint, not by save');
    // Placement fields keep their current value when an update leaves them out.
    record.status = record.status ?? current?.status ?? 'active';
    if (categoryTypesOf(kind).length > 0) record.idCategory = record.idCategory ?? current?.idCategory ?? '';
    if (isLocal(kind, record) && record.idCategory !== '') {
      throw ServiceError.badRequest(ErrorCodes.VALIDATION, `idCategory must be "" for a ${kind.kind} local to a funnel (${kind.scopeField} is set)`, [
        { field: 'idCategory', code: 'notAllowed', message: 'a funnel-local asset is not kept in a category' },
      ]);
    }
    return record as AssetRecord;
  }

  /** An asset can only be placed in a live category of its own category type. */
  private async checkCategoryReference(kind: AssetKindDescriptor, context: CallerContext, record: AssetRecord, idCategory: unknown): Promise<void> {
    if (categoryTypesOf(kind).length === 0 || typeof idCategory !== 'string' || idCategory === '') return;
    const id = String(record[kind.idField]);
    const needed = categoryTypeOfRecord(kind, record);
    if (!needed)
      throw ServiceError.invalidField('idCategory', 'notAllowed', `idCategory: ${kind.kind} ${id} is local to a funnel and cannot be placed in a category`);
    const category = await this.queries.current('category', context.accountId, idCategory);
    if (!category || category.status === 'deleted') {
      throw ServiceError.invalidField('idCategory', 'exists', `idCategory: category ${idCategory} does not exist`);
    }
    if (category.categoryType !== needed) {
      throw ServiceError.invalidField(
        'idCategory',
        'categoryType',
        `idCategory: category ${idCategory} is of type ${String(category.categoryType)}, ${kind.kind} ${id} needs ${needed}`,
      );
    }
  }

  /**
   * Every field naming another asset names a live one of the right kind and type in the caller's
   * account, in the reference's scope (a funnel names page groups that are global or its own). Each
   * distinct asset is read once, however many fields name it (a funnel's nodes often share one).
   */
  private async checkReferences(
    kind: AssetKindDescriptor,
    context: CallerContext,
    record: AssetRecord,
    planned?: ReadonlyMap<string, AssetRecord>,
  ): Promise<void> {
    const problems = await this.referenceProblems(kind, context, record, planned);
    const code = this.registry.rules(kind.kind).referenceCode ?? ErrorCodes.INVALID_REFERENCE;
    if (problems.length) throw ServiceError.badRequest(code, problems[0].message, problems);
  }

  /** Reference problems of a record; `planned` holds records a duplicate creates before this one (by referenceKey). */
  private async referenceProblems(
    kind: AssetKindDescriptor,
    context: CallerContext,
    record: AssetRecord,
    planned?: ReadonlyMap<string, AssetRecord>,
  ): Promise<FieldProblem[]> {
    const references = this.registry.rules(kind.kind).references?.(record) ?? [];
    if (!references.length) return [];
    const keyOf = (ref: AssetReference) => referenceKey(ref.kind, ref.id);
    const distinct = [...new Map(references.map((ref) => [keyOf(ref), ref])).values()];
    // One read-model query per kind for all the assets it names (a deleted one reads as missing, as it is for references).
    const targets = new Map<string, AssetRecord>();
    const idsByKind = new Map<string, string[]>();
    for (const ref of distinct) {
      const plannedRecord = planned?.get(keyOf(ref));
      if (plannedRecord) targets.set(keyOf(ref), plannedRecord);
      else if (idsByKind.has(ref.kind)) idsByKind.get(ref.kind)!.push(ref.id);
      else idsByKind.set(ref.kind, [ref.id]);
    }
    for (const [referenced, ids] of idsByKind) {
      const idField = this.registry.get(referenced).idField;
      for (const target of await this.queries.currentMany(referenced, context.accountId, ids))
        targets.set(referenceKey(referenced, String(target[idField])), target);
    }
    const problems = references.flatMap((ref) => {
      const target = targets.get(keyOf(ref));
      if (!target || target.status === 'deleted') {
        return [{ field: ref.field, code: 'reference', message: `${ref.label ?? ref.field}: ${ref.kind} ${ref.id} does not exist` }];
      }
      const mismatch = Object.entries(ref.where ?? {}).find(([field, value]) => target[field] !== value);
      if (mismatch) {
        const [field, value] = mismatch;
        return [
          {
            field: ref.field,
            code: 'reference',
            message: `${ref.label ?? ref.field}: ${ref.kind} ${ref.id} has ${field} ${String(target[field])}, not ${String(value)}`,
          },
        ];
      }
      if (!isInReferenceScope(ref, target)) {
        return [{ field: ref.field, code: 'reference', message: `${ref.label ?? ref.field}: ${ref.kind} ${ref.id} is local to another funnel` }];
      }
      return [];
    });
    return problems;
  }
}

/**
 * The revision a bulk write's If-Match names (undefined without one). An ETag is one asset's, so
 * If-Match goes with exactly one entry (a 400 otherwise).
 */
function ifMatchOf(request: AssetRequestBody, entries: readonly string[]): number | undefined {
  const revision = ifMatchRevision(request.headers);
  if (revision !== undefined && new Set(entries).size !== 1)
    throw ServiceError.invalidField('If-Match', 'singleEntry', "If-Match names one asset's revision: send it with exactly one entry");
  return revision;
}

function referenceKey(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}

/** A 400's details (or one problem from its message). */
function problemsOf(error: ServiceError): FieldProblem[] {
  return error.details.length ? (error.details as FieldProblem[]) : [{ field: '', code: error.code, message: error.message }];
}

/** A write's body with each alias (descriptor `writeAliases`) given as its field, when the field itself is left out. */
function withWriteAliases(kind: AssetKindDescriptor, body: unknown): unknown {
  if (!kind.writeAliases || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const named = { ...(body as Record<string, unknown>) };
  for (const [alias, field] of Object.entries(kind.writeAliases)) {
    if (named[field] === undefined && named[alias] !== undefined) named[field] = named[alias];
    delete named[alias];
  }
  return named;
}

/** The bodyUpdates a duplicate honours: all, or only the kind's allowed fields. */
function allowedUpdates(kind: AssetKindDescriptor, updates: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!updates || !kind.duplicateUpdatableFields) return updates;
  return Object.fromEntries(Object.entries(updates).filter(([field]) => kind.duplicateUpdatableFields!.includes(field)));
}
