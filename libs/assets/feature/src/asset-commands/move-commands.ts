import { Injectable } from '@nestjs/common';
import {
  AssetKindDescriptor,
  AssetRequestBody,
  CallerContext,
  ErrorCodes,
  ID_RULE,
  MoveCategoryRequestDto,
  ServiceError,
  StringListDto,
  categoryTypesOf,
  isLocal,
  isValidAssetId,
  validateBody,
} from '@funnel/contracts';
import { AssetRecord, decideAsset } from '@funnel/assets-domain';
import { AssetRepository, assertRevision } from '../asset-repository';
import { AssetProjector } from '../asset-projector';
import { AssetQueries } from '../asset-queries';
import { mapInTurns } from '../turn-taking';
import { AssetWrites, Decided } from './asset-writes';
import { RecordChecks } from './record-checks';
import { ifMatchOf } from './request-parts';

/** PUT move/ (to another parent record) and PUT move-category/ (to another category). */
@Injectable()
export class MoveCommands {
  constructor(
    private readonly repository: AssetRepository,
    private readonly projector: AssetProjector,
    private readonly queries: AssetQueries,
    private readonly writes: AssetWrites,
    private readonly checks: RecordChecks,
  ) {}

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
    const appended = await this.writes.appendAll(kind, context, decided, ifMatch !== undefined);
    if (appended.length) await this.projector.waitFor(appended[appended.length - 1].position);
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
    for (const record of records) if (record) await this.checks.checkCategoryReference(kind, context, record, idCategory);
    await this.writes.decideAndAppend(kind, context, entries, () => ({ type: 'MoveAssetToCategory', idCategory }), ifMatch);
  }
}
