import { Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, ServiceError, generateAssetId, validateBody } from '@funnel/contracts';
import { AssetRepository, assertRevision, revisionMismatch } from '../asset-repository';
import { ifMatchRevision } from '../query-params';
import { AssetQueries } from '../asset-queries';
import { AssetWrites } from './asset-writes';
import { RecordChecks } from './record-checks';
import { withWriteAliases } from './request-parts';

/** POST and PUT save/: create, update, and the upsert of kinds whose save creates or updates. */
@Injectable()
export class SaveCommand {
  constructor(
    private readonly repository: AssetRepository,
    private readonly queries: AssetQueries,
    private readonly writes: AssetWrites,
    private readonly checks: RecordChecks,
  ) {}

  /** POST save/: creates (409 when the id exists); an upsert kind's save creates or updates. */
  async create(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<unknown> {
    if (kind.upsert) return this.upsert(kind, context, request);
    const record = await this.checks.prepareRecord(kind, context, validateBody(kind.recordDto, withWriteAliases(kind, request.body)), null);
    await this.writes.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record }));
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

  /** Save of an upsert kind: a record without an id gets one (answered as `{ <idField> }`); an existing id is updated. */
  private async upsert(kind: AssetKindDescriptor, context: CallerContext, { body, headers }: AssetRequestBody): Promise<unknown> {
    const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>)[kind.idField] : undefined;
    const id = given === undefined || given === null || given === '' ? generateAssetId() : given;
    const dto = validateBody(kind.recordDto, { ...(withWriteAliases(kind, body) as object), [kind.idField]: id }) as Record<string, unknown>;
    const existing = await this.updateExisting(kind, context, String(id), dto, false, ifMatchRevision(headers));
    if (!existing) {
      const record = await this.checks.prepareRecord(kind, context, dto, null);
      await this.writes.appendNew(kind, context, record, () => ({ type: 'CreateAsset', record }));
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
    const record = await this.checks.prepareRecord(kind, context, dto, current);
    await this.writes.appendUpdate(kind, context, id, loaded, record, ifMatch !== undefined);
    return true;
  }
}
