import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, CallerContext, ErrorCodes, ServiceError, categoryTypeOfRecord, categoryTypesOf, isLocal } from '@funnel/contracts';
import { AssetRecord, AssetReference, AssetRegistry, FieldProblem, SecretCipher, applySecretWrites, isInReferenceScope } from '@funnel/assets-domain';
import { ASSET_REGISTRY, SECRET_CIPHER } from '../assets.tokens';
import { AssetQueries } from '../asset-queries';

/**
 * A record as it will be stored, checked as save checks it: the DTO's fields, placement, the
 * funnel-local scope rule, the kind's own rules, its category and every asset it names.
 */
@Injectable()
export class RecordChecks {
  constructor(
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
    private readonly queries: AssetQueries,
    @Inject(SECRET_CIPHER) private readonly secrets: SecretCipher,
  ) {}

  /**
   * A record as it will be stored, with every rule checked: the DTO's fields only (derived ones
   * dropped), placement kept from the current record when left out, the funnel-local scope rule,
   * the kind's own rules, its category and its references. Throws a 400 naming the fields otherwise.
   */
  async prepareRecord(
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
  toRecord(kind: AssetKindDescriptor, dto: object, current: AssetRecord | null): AssetRecord {
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
  async checkCategoryReference(kind: AssetKindDescriptor, context: CallerContext, record: AssetRecord, idCategory: unknown): Promise<void> {
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
  async checkReferences(kind: AssetKindDescriptor, context: CallerContext, record: AssetRecord, planned?: ReadonlyMap<string, AssetRecord>): Promise<void> {
    const problems = await this.referenceProblems(kind, context, record, planned);
    const code = this.registry.rules(kind.kind).referenceCode ?? ErrorCodes.INVALID_REFERENCE;
    if (problems.length) throw ServiceError.badRequest(code, problems[0].message, problems);
  }

  /** Reference problems of a record; `planned` holds records a duplicate creates before this one (by referenceKey). */
  async referenceProblems(
    kind: AssetKindDescriptor,
    context: CallerContext,
    record: AssetRecord,
    planned?: ReadonlyMap<string, AssetRecord>,
  ): Promise<FieldProblem[]> {
    const references = this.registry.rules(kind.kind).references?.(record) ?? [];
    if (!references.length) return [];
    // The distinct ids named, by kind (a 200-node funnel names ~200 assets, most of them the same few),
    // each with its record once read; no key text is made per reference.
    const targets = new Map<string, Map<string, AssetRecord | undefined>>();
    for (const ref of references) {
      let ids = targets.get(ref.kind);
      if (!ids) targets.set(ref.kind, (ids = new Map()));
      ids.set(ref.id, undefined);
    }
    // One read-model query per kind for all the assets it names (a deleted one reads as missing, as it is for references).
    for (const [referenced, ids] of targets) {
      const toRead: string[] = [];
      for (const id of ids.keys()) {
        const plannedRecord = planned?.get(referenceKey(referenced, id));
        if (plannedRecord) ids.set(id, plannedRecord);
        else toRead.push(id);
      }
      if (!toRead.length) continue;
      const idField = this.registry.get(referenced).idField;
      for (const target of await this.queries.currentMany(referenced, context.accountId, toRead)) ids.set(String(target[idField]), target);
    }
    const problems: FieldProblem[] = [];
    for (const ref of references) {
      const problem = referenceProblem(ref, targets.get(ref.kind)!.get(ref.id));
      if (problem) problems.push(problem);
    }
    return problems;
  }
}

/** What is wrong with a reference to `target` (undefined: it is missing): undefined when nothing is. */
function referenceProblem(ref: AssetReference, target: AssetRecord | undefined): FieldProblem | undefined {
  const label = ref.label ?? ref.field;
  if (!target || target.status === 'deleted') return { field: ref.field, code: 'reference', message: `${label}: ${ref.kind} ${ref.id} does not exist` };
  for (const field in ref.where) {
    const value = ref.where[field];
    if (target[field] !== value)
      return { field: ref.field, code: 'reference', message: `${label}: ${ref.kind} ${ref.id} has ${field} ${String(target[field])}, not ${String(value)}` };
  }
  if (!isInReferenceScope(ref, target)) return { field: ref.field, code: 'reference', message: `${label}: ${ref.kind} ${ref.id} is local to another funnel` };
  return undefined;
}

/** A referenced asset's key (kind and id) in maps of records, as a duplicate's planned copies. */
export function referenceKey(kind: string, id: string): string {
  return `${kind}\u0000${id}`;
}
