import { Inject, Injectable } from '@nestjs/common';
import {
  AssetKindDescriptor,
  AssetRequestBody,
  CallerContext,
  ErrorCodes,
  QueryFilter,
  SerializedJson,
  ServiceError,
  categoryTypesOf,
  generateAssetId,
  validateBody,
} from '@funnel/contracts';
import { Filter, READ_STORE, ReadStore } from '@funnel/readstore';
import { ASSET_REGISTRY } from './assets.tokens';
import { AssetRecord, AssetRegistry, assertKindRules, maskSecrets } from '@funnel/assets-domain';
import { AssetDocument, DocumentIds, assetDocumentId, assetsCollection } from './asset-documents';
import { Page, encodeCursor, idParam, idsParam, optionalParam, pageParams, requiredParam, statusCondition, statusParam } from './query-params';
import { AssetAnswer } from './asset-answer';
import { AnswerCache, CachedAnswer, DOCUMENT_HEAD, DocumentHead } from './answer-cache';

/** Read side of every asset kind: reads the read model only, always within the caller's account. */
@Injectable()
export class AssetQueries {
  private readonly collection = assetsCollection(this.readStore);
  private readonly answers = new AnswerCache();
  private readonly documentIds = new DocumentIds();

  constructor(
    @Inject(READ_STORE) private readonly readStore: ReadStore,
    @Inject(ASSET_REGISTRY) private readonly registry: AssetRegistry,
  ) {}

  /** Slim records (full ones for kinds without a slim projection). */
  async list(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    const status = statusParam(query, kind.list.statusRequired, kind.list.defaultStatus);
    const condition = { ...statusCondition(status), ...this.filters(kind.list.filters, query), ...this.scopeFilter(kind, query) };
    return this.listPage(kind, context, condition, pageParams(query));
  }

  async findByStatus(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    const status = statusParam(query, true, 'all');
    const condition = { ...statusCondition(status), ...this.filters(kind.findByStatusFilters, query) };
    return this.listPage(kind, context, condition, pageParams(query));
  }

  /** Slim records of one type (a page group's pageType); `status` defaults to not-deleted. */
  async findByType(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    if (!kind.typeFilter) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no types`);
    const status = statusParam(query, false, 'not-deleted');
    const condition = { ...statusCondition(status), ...this.filters([kind.typeFilter], query) };
    return this.listPage(kind, context, condition, pageParams(query));
  }

  /** Full records of the non-deleted assets in one category (`""`: uncategorized); funnel-local assets are in none. */
  async findByCategory(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    // A kind kept in a parent record (a funnel in its funnel group) has that record as its category.
    const placement: Filter = kind.parent
      ? { [`record.${kind.parent.field}`]: requiredParam(query, kind.parent.field) }
      : { idCategory: requiredParam(query, 'idCategory') };
    const condition: Filter = { ...placement, status: { $ne: 'deleted' }, ...this.filters(kind.findByCategoryFilters ?? [], query) };
    if (kind.scopeField) condition[`record.${kind.scopeField}`] = '';
    return this.recordPage(kind, context, condition, pageParams(query));
  }

  /**
   * A deleted asset is not found here; it stays readable through the `all` status filter. Answers its
   * revision (the ETag). The record is serialized once per revision of the document (and name of its
   * category): later reads of it read only the document's head and hand the same text on (a 200-node
   * funnel is ~60 kB).
   */
  async findById(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    const id = idParam(query, kind.idField);
    const head: DocumentHead | null = await this.collection.findOne({ _id: assetDocumentId(kind.kind, context.accountId, id) }, { projection: DOCUMENT_HEAD });
    const [found] = head && head.status !== 'deleted' ? await this.serializedRecords(kind, context, [head]) : [];
    if (!found) throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    return new AssetAnswer(found.answer, found.revision);
  }

  /**
   * The records of `heads` as find/byId shows them, in their order, each serialized once per revision
   * of its document and name of its category (kept in a bounded cache shared by every kind and
   * operation answering full records): the records without a current answer are read with one query
   * and serialized, the others are handed on as they are. A document deleted since its head was read
   * is left out (one whose head was deleted is answered: lists may show deleted assets); one changed
   * since is answered as it is now.
   */
  private async serializedRecords(kind: AssetKindDescriptor, context: CallerContext, heads: readonly DocumentHead[]): Promise<CachedAnswer[]> {
    const placed = categoryTypesOf(kind).length > 0;
    const categoryIds = new Set<string>();
    if (placed) for (const head of heads) if (head.idCategory !== '') categoryIds.add(head.idCategory);
    // Read only when there is a name to read (an await per request costs a promise and a turn).
    const names = categoryIds.size ? await this.categoryNames(context, categoryIds) : new Map<string, string>();
    const found: (CachedAnswer | undefined)[] = [];
    const missing: string[] = [];
    for (const head of heads) {
      const cached = this.answers.current(head._id, head.revision, placed ? (names.get(head.idCategory) ?? '') : undefined);
      found.push(cached);
      if (!cached) missing.push(head._id);
    }
    if (!missing.length) return found as CachedAnswer[];
    const deletedBefore = new Set(heads.filter((head) => head.status === 'deleted').map((head) => head._id));
    const docs = (await this.collection.find({ _id: { $in: missing } })).filter((d) => d.status !== 'deleted' || deletedBefore.has(d._id));
    const records = await this.withCategoryNames(kind, context, docs, names);
    const made = new Map<string, CachedAnswer>();
    docs.forEach(({ _id, revision }, i) => {
      const entry = { revision, categoryName: placed ? String(records[i].categoryName) : undefined, answer: SerializedJson.of(records[i]) };
      this.answers.remember(_id, entry);
      made.set(_id, entry);
    });
    return heads.flatMap((head, i) => found[i] ?? made.get(head._id) ?? []);
  }

  /** The record find/byId shows (a 404 when missing or deleted), with the revision it reflects. */
  private async recordById(kind: AssetKindDescriptor, context: CallerContext, id: string): Promise<{ record: AssetRecord; revision: number }> {
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind.kind, context.accountId, id) });
    if (!doc || doc.status === 'deleted') throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    const [record] = await this.withCategoryNames(kind, context, [doc]);
    return { record, revision: doc.revision };
  }

  /** The names of the account's categories `ids` (one read for one id, one query for several). */
  private async categoryNames(context: CallerContext, ids: ReadonlySet<string>): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    if (ids.size === 1) {
      const [idCategory] = ids;
      const category = await this.collection.findOne({ _id: assetDocumentId('category', context.accountId, idCategory) });
      if (category) names.set(idCategory, String(category.record.categoryName ?? ''));
    } else if (ids.size > 1) {
      const categories = await this.collection.find({ _id: { $in: [...ids].map((id) => assetDocumentId('category', context.accountId, id)) } });
      for (const c of categories) names.set(c.assetId, String(c.record.categoryName ?? ''));
    }
    return names;
  }

  /**
   * Found assets in the order asked; ids that do not exist (or are deleted) are left out. Paged
   * (`limit`, `cursor`), the found assets come in id order.
   */
  async findByIds(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetAnswer> {
    const ids = idsParam(query, kind.idsParam);
    const page = pageParams(query);
    if (!ids.length) return new AssetAnswer([]);
    const heads: DocumentHead[] = await this.collection.find(
      { _id: { $in: this.documentIds.of(kind.kind, context.accountId, ids) } },
      { projection: DOCUMENT_HEAD },
    );
    const live = heads.filter((head) => head.status !== 'deleted');
    // Unpaged: in the order asked, as before; paged: in id order, after the cursor.
    const ordered =
      page.limit === undefined && page.after === undefined
        ? inOrderAsked(ids, live)
        : live.filter((d) => page.after === undefined || d.assetId > page.after).sort((a, b) => (a.assetId < b.assetId ? -1 : 1));
    const { docs: shown, nextCursor } = pageOf(ordered, page.limit);
    return this.serializedAnswer(kind, context, shown, nextCursor);
  }

  /** The records of `heads` as one serialized JSON array (see serializedRecords), with the page's next cursor. */
  private async serializedAnswer(kind: AssetKindDescriptor, context: CallerContext, heads: DocumentHead[], nextCursor?: string): Promise<AssetAnswer> {
    const found = await this.serializedRecords(kind, context, heads);
    return new AssetAnswer(SerializedJson.array(found.map((f) => f.answer)), undefined, nextCursor);
  }

  /** find/byName: full records of the non-deleted assets whose name is exactly `name`. */
  async findByName(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<AssetAnswer | AssetRecord> {
    return this.lookup(kind, context, request, 'findByName');
  }

  /** find/bySlug: the non-deleted asset with that slug (404 when none). */
  async findBySlug(kind: AssetKindDescriptor, context: CallerContext, request: AssetRequestBody): Promise<AssetAnswer | AssetRecord> {
    return this.lookup(kind, context, request, 'findBySlug');
  }

  private async lookup(
    kind: AssetKindDescriptor,
    context: CallerContext,
    { query }: AssetRequestBody,
    operation: 'findByName' | 'findBySlug',
  ): Promise<AssetAnswer | AssetRecord> {
    const lookup = kind.lookups?.[operation];
    if (!lookup) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no ${operation}`);
    const value = requiredParam(query, lookup.param);
    const condition = { [`record.${lookup.field}`]: value, status: { $ne: 'deleted' } };
    if (!lookup.single) return this.recordPage(kind, context, condition, pageParams(query));
    const found = await this.findMany(kind, context, condition);
    if (!found.length)
      throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `no ${kind.kind} with ${lookup.param} ${value.length > 64 ? `${value.slice(0, 64)}…` : value}`);
    return found[0];
  }

  /**
   * A dry run of the kind's own logic: the body names a stored asset by its id field
   * (`{ idCondition, ...input }`), or carries a draft record under the kind's name (`{ condition: {...}, ...input }`),
   * which is checked like a saved one (its id and name may be left out).
   */
  async evaluate(kind: AssetKindDescriptor, context: CallerContext, { body }: AssetRequestBody): Promise<unknown> {
    const evaluate = this.registry.rules(kind.kind).evaluate;
    if (!evaluate) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${kind.kind} has no dry run`);
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'body must be a JSON object');
    const { [kind.idField]: id, [kind.kind]: draft, ...input } = body as Record<string, unknown>;
    let record: AssetRecord;
    if (draft !== undefined) {
      if (draft === null || typeof draft !== 'object' || Array.isArray(draft))
        throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${kind.kind} must be an object`);
      const dto = validateBody(kind.recordDto, { [kind.idField]: generateAssetId(), [kind.nameField]: 'draft', ...draft }, kind.kind) as Record<
        string,
        unknown
      >;
      record = { ...dto, status: 'active' } as AssetRecord;
      assertKindRules(kind.kind, this.registry.rules(kind.kind), record);
    } else if (id !== undefined) {
      record = (await this.recordById(kind, context, idParam({ [kind.idField]: typeof id === 'string' ? id : '' }, kind.idField))).record;
    } else {
      throw ServiceError.badRequest(ErrorCodes.VALIDATION, `${kind.idField} or ${kind.kind} is required`, [
        { field: kind.idField, code: 'required', message: `${kind.idField} (a saved ${kind.kind}) or ${kind.kind} (a draft) is required` },
      ]);
    }
    return evaluate(record, input);
  }

  /** The live record of an asset, for command-side checks (category references, move targets). */
  async current(kind: string, accountId: string, id: string): Promise<AssetRecord | null> {
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind, accountId, id) });
    return doc?.record ?? null;
  }

  /** The live records of one kind among `ids` (missing ones left out), for command-side reads (a funnel's warnings). */
  async currentMany(kind: string, accountId: string, ids: readonly string[]): Promise<AssetRecord[]> {
    if (!ids.length) return [];
    const docs = await this.collection.find({ _id: { $in: ids.map((id) => assetDocumentId(kind, accountId, id)) } });
    return docs.filter((d) => d.status !== 'deleted').map((d) => d.record);
  }

  /** The non-deleted records of one kind whose `field` holds `value` (a funnel's local assets, a group's funnels). */
  async liveByField(kind: string, accountId: string, field: string, value: string): Promise<AssetRecord[]> {
    const docs = await this.collection.find({ accountId, kind, status: { $ne: 'deleted' }, [`record.${field}`]: value }, { sort: { assetId: 1 } });
    return docs.map((d) => d.record);
  }

  private filters(filters: QueryFilter[], query: AssetRequestBody['query']): Filter {
    const condition: Filter = {};
    for (const f of filters) {
      const value = f.required ? requiredParam(query, f.param) : optionalParam(query, f.param);
      if (value === undefined) continue;
      if (f.allowed && !f.allowed.includes(value)) {
        throw ServiceError.invalidField(f.param, 'isIn', `query parameter ${f.param} must be one of ${f.allowed.join(', ')}`);
      }
      condition[f.field === 'idCategory' ? 'idCategory' : `record.${f.field}`] = f.values?.[value] ?? value;
    }
    return condition;
  }

  /** `idFunnel` (non-empty): only the assets local to that funnel; else `globalOnly=true`: only global ones; else all. */
  private scopeFilter(kind: AssetKindDescriptor, query: AssetRequestBody['query']): Filter {
    if (!kind.scopeField) return {};
    const idFunnel = optionalParam(query, 'idFunnel');
    if (idFunnel) return { [`record.${kind.scopeField}`]: idFunnel };
    const globalOnly = optionalParam(query, 'globalOnly') ?? 'false';
    if (globalOnly !== 'true' && globalOnly !== 'false')
      throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'query parameter globalOnly must be true or false');
    return globalOnly === 'true' ? { [`record.${kind.scopeField}`]: '' } : {};
  }

  /**
   * The kind's slim projection: the id, its slim fields, status and placement, then its computed
   * fields, its joined fields (descriptor `slimJoins`) and its children's slim records (`slimChildren`).
   */
  private async slim(kind: AssetKindDescriptor, context: CallerContext, records: AssetRecord[]): Promise<AssetRecord[]> {
    const fields = kind.slimFields;
    if (!fields) return records;
    const placed = categoryTypesOf(kind).length > 0;
    const computed = this.registry.rules(kind.kind).slim;
    const slims = records.map((record) => {
      const slim: Record<string, unknown> = { [kind.idField]: record[kind.idField] };
      for (const field of fields) slim[field] = record[field];
      slim.status = record.status;
      if (placed) {
        slim.idCategory = record.idCategory;
        slim.categoryName = record.categoryName;
      }
      if (computed) Object.assign(slim, computed(record));
      return slim as AssetRecord;
    });
    await this.joinSlimFields(kind, context, slims);
    await this.addSlimChildren(kind, context, slims);
    return slims;
  }

  /** Each slim join's field, read from the records it names with one query per join (`""` when the record is gone). */
  private async joinSlimFields(kind: AssetKindDescriptor, context: CallerContext, slims: AssetRecord[]): Promise<void> {
    for (const join of kind.slimJoins ?? []) {
      const ids = [...new Set(slims.map((s) => s[join.field]).filter((id): id is string => typeof id === 'string' && id !== ''))];
      const found = await this.currentMany(join.kind, context.accountId, ids);
      const byId = new Map(found.map((r) => [String(r[this.registry.get(join.kind).idField]), r[join.take]]));
      for (const slim of slims) slim[join.as] = byId.get(String(slim[join.field])) ?? '';
    }
  }

  /** The slim records of every parent's live children, read with one query for all the parents. */
  private async addSlimChildren(kind: AssetKindDescriptor, context: CallerContext, slims: AssetRecord[]): Promise<void> {
    const children = kind.slimChildren;
    if (!children || !slims.length) return;
    const childKind = this.registry.get(children.kind);
    const parentIds = slims.map((s) => String(s[kind.idField]));
    const docs = await this.collection.find(
      { accountId: context.accountId, kind: children.kind, status: { $ne: 'deleted' }, [`record.${children.field}`]: { $in: parentIds } },
      { sort: { assetId: 1 } },
    );
    const childSlims = await this.slim(childKind, context, await this.withCategoryNames(childKind, context, docs));
    const byParent = new Map<string, AssetRecord[]>(parentIds.map((id) => [id, []]));
    for (const child of childSlims) byParent.get(String(child[children.field]))?.push(child);
    for (const slim of slims) slim[children.as] = byParent.get(String(slim[kind.idField])) ?? [];
  }

  private async findMany(kind: AssetKindDescriptor, context: CallerContext, condition: Filter): Promise<AssetRecord[]> {
    const docs = await this.collection.find({ accountId: context.accountId, kind: kind.kind, ...condition }, { sort: { assetId: 1 } });
    return this.withCategoryNames(kind, context, docs);
  }

  /**
   * One page of the matching assets in id order: those after the cursor's id, at most `limit` (one
   * more is read to know whether a next page exists). Ids never change, so a walk page by page finds
   * every asset that exists for the whole walk exactly once, whatever is written meanwhile.
   * `projection`: the documents' fields to read (all without it).
   */
  private async findPage<T extends DocumentHead>(
    kind: AssetKindDescriptor,
    context: CallerContext,
    condition: Filter,
    page: Page,
    projection?: typeof DOCUMENT_HEAD,
  ): Promise<{ docs: T[]; nextCursor?: string }> {
    const filter: Filter = { accountId: context.accountId, kind: kind.kind, ...condition };
    if (page.after !== undefined) filter.assetId = { $gt: page.after };
    const limit = page.limit === undefined ? {} : { limit: page.limit + 1 };
    const docs = await this.collection.find(filter, { sort: { assetId: 1 }, ...limit, ...(projection ? { projection } : {}) });
    return pageOf(docs as DocumentHead[] as T[], page.limit);
  }

  /** A page of full records, serialized (see serializedRecords): only the documents' heads are matched and read. */
  private async recordPage(kind: AssetKindDescriptor, context: CallerContext, condition: Filter, page: Page): Promise<AssetAnswer> {
    const { docs, nextCursor } = await this.findPage(kind, context, condition, page, DOCUMENT_HEAD);
    return this.serializedAnswer(kind, context, docs, nextCursor);
  }

  /** A page of a list: the kind's slim records (see slim), or full records for a kind without a slim projection. */
  private async listPage(kind: AssetKindDescriptor, context: CallerContext, condition: Filter, page: Page): Promise<AssetAnswer> {
    if (!kind.slimFields) return this.recordPage(kind, context, condition, page);
    const { docs, nextCursor } = await this.findPage<AssetDocument>(kind, context, condition, page);
    return new AssetAnswer(await this.slim(kind, context, await this.withCategoryNames(kind, context, docs)), undefined, nextCursor);
  }

  /**
   * `categoryName` always shows the category's current name (joined at read time, so a rename shows at once);
   * `known`: names already read (the others are read with one query).
   * The read store hands out private copies, so each record is completed in place: in V8, a spread copy
   * that then gains fields gets a new hidden class on every call, which showed in request profiles.
   */
  private async withCategoryNames(
    kind: AssetKindDescriptor,
    context: CallerContext,
    docs: AssetDocument[],
    known?: ReadonlyMap<string, string>,
  ): Promise<AssetRecord[]> {
    // `owner` is the account: shown on every full record, never taken from a write. Secrets show as placeholders.
    const secretFields = kind.secretFields ?? [];
    for (const d of docs) {
      d.record.owner = context.accountId;
      if (secretFields.length) d.record = maskSecrets(d.record, secretFields);
    }
    if (categoryTypesOf(kind).length === 0) return docs.map((d) => d.record);
    const categoryIds = new Set<string>();
    for (const d of docs) if (d.idCategory !== '' && !known?.has(d.idCategory)) categoryIds.add(d.idCategory);
    const names = categoryIds.size ? await this.categoryNames(context, categoryIds) : new Map<string, string>();
    return docs.map(({ record, idCategory }) => {
      record.idCategory = idCategory;
      record.categoryName = known?.get(idCategory) ?? names.get(idCategory) ?? '';
      return record;
    });
  }
}

/**
 * `heads` in the order of `ids` (distinct; those without a head left out). The embedded read store
 * answers an `$in` of ids in the order given, so the heads are usually in order already: that is
 * checked by walking both lists (no map of the heads by id is built then).
 */
function inOrderAsked(ids: readonly string[], heads: DocumentHead[]): DocumentHead[] {
  let next = 0;
  for (let i = 0; i < ids.length && next < heads.length; i++) if (heads[next].assetId === ids[i]) next++;
  if (next === heads.length) return heads;
  const byId = new Map<string, DocumentHead>();
  for (const head of heads) byId.set(head.assetId, head);
  const ordered: DocumentHead[] = [];
  for (const id of ids) {
    const head = byId.get(id);
    if (head) ordered.push(head);
  }
  return ordered;
}

/** The first `limit` of `docs` (in id order; all without a limit) and, when more follow, the cursor after the last one shown. */
function pageOf<T extends { assetId: string }>(docs: T[], limit: number | undefined): { docs: T[]; nextCursor?: string } {
  if (limit === undefined || docs.length <= limit) return { docs };
  const shown = docs.slice(0, limit);
  return { docs: shown, nextCursor: encodeCursor(shown[shown.length - 1].assetId) };
}
