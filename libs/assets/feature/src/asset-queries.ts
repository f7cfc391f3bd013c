import { Inject, Injectable } from '@nestjs/common';
import { AssetKindDescriptor, AssetRequestBody, CallerContext, ErrorCodes, QueryFilter, ServiceError } from '@funnel/contracts';
import { Filter, READ_STORE, ReadStore } from '@funnel/readstore';
import { AssetRecord } from '@funnel/assets-domain';
import { AssetDocument, assetDocumentId, assetsCollection } from './asset-documents';
import { idParam, idsParam, optionalParam, requiredParam, statusCondition, statusParam } from './query-params';

/** Read side of every asset kind: reads the read model only, always within the caller's account. */
@Injectable()
export class AssetQueries {
  private readonly collection = assetsCollection(this.readStore);

  constructor(@Inject(READ_STORE) private readonly readStore: ReadStore) {}

  async list(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetRecord[]> {
    const status = statusParam(query, kind.list.statusRequired, kind.list.defaultStatus);
    return this.findMany(kind, context, { ...statusCondition(status), ...this.filters(kind.list.filters, query) });
  }

  async findByStatus(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetRecord[]> {
    const status = statusParam(query, true, 'all');
    return this.findMany(kind, context, { ...statusCondition(status), ...this.filters(kind.findByStatusFilters, query) });
  }

  async findByCategory(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetRecord[]> {
    const idCategory = requiredParam(query, 'idCategory');
    return this.findMany(kind, context, { idCategory, status: { $ne: 'deleted' } });
  }

  /** A deleted asset is not found here; it stays readable through the `all` status filter. */
  async findById(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetRecord> {
    const id = idParam(query, kind.idField);
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind.kind, context.accountId, id) });
    if (!doc || doc.status === 'deleted') throw ServiceError.notFound(ErrorCodes.ASSET_NOT_FOUND, `${kind.kind} ${id} not found`);
    const [record] = await this.withCategoryNames(kind, context, [doc]);
    return record;
  }

  /** Found assets in the order asked; ids that do not exist (or are deleted) are left out. */
  async findByIds(kind: AssetKindDescriptor, context: CallerContext, { query }: AssetRequestBody): Promise<AssetRecord[]> {
    const ids = idsParam(query, kind.idsParam);
    if (!ids.length) return [];
    const docs = await this.collection.find({ _id: { $in: ids.map((id) => assetDocumentId(kind.kind, context.accountId, id)) } });
    const byId = new Map(docs.filter((d) => d.status !== 'deleted').map((d) => [d.assetId, d]));
    return this.withCategoryNames(
      kind,
      context,
      ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : [])),
    );
  }

  /** The live record of an asset, for command-side checks (category references, move targets). */
  async current(kind: string, accountId: string, id: string): Promise<AssetRecord | null> {
    const doc = await this.collection.findOne({ _id: assetDocumentId(kind, accountId, id) });
    return doc?.record ?? null;
  }

  private filters(filters: QueryFilter[], query: AssetRequestBody['query']): Filter {
    const condition: Filter = {};
    for (const f of filters) {
      const value = f.required ? requiredParam(query, f.param) : optionalParam(query, f.param);
      if (value === undefined) continue;
      if (f.allowed && !f.allowed.includes(value)) {
        throw ServiceError.invalidField(f.param, 'isIn', `query parameter ${f.param} must be one of ${f.allowed.join(', ')}`);
      }
      condition[f.field === 'idCategory' ? 'idCategory' : `record.${f.field}`] = value;
    }
    return condition;
  }

  private async findMany(kind: AssetKindDescriptor, context: CallerContext, condition: Filter): Promise<AssetRecord[]> {
    const docs = await this.collection.find({ accountId: context.accountId, kind: kind.kind, ...condition }, { sort: { assetId: 1 } });
    return this.withCategoryNames(kind, context, docs);
  }

  /**
   * `categoryName` always shows the category's current name (joined at read time, so a rename shows at once).
   * The read store hands out private copies, so each record is completed in place: in V8, a spread copy
   * that then gains fields gets a new hidden class on every call, which showed in request profiles.
   */
  private async withCategoryNames(kind: AssetKindDescriptor, context: CallerContext, docs: AssetDocument[]): Promise<AssetRecord[]> {
    if (!kind.categoryType) return docs.map((d) => d.record);
    const categoryIds = new Set<string>();
    for (const d of docs) if (d.idCategory !== '') categoryIds.add(d.idCategory);
    const names = new Map<string, string>();
    if (categoryIds.size === 1) {
      const [idCategory] = categoryIds;
      const category = await this.collection.findOne({ _id: assetDocumentId('category', context.accountId, idCategory) });
      if (category) names.set(idCategory, String(category.record.categoryName ?? ''));
    } else if (categoryIds.size > 1) {
      const categories = await this.collection.find({ _id: { $in: [...categoryIds].map((id) => assetDocumentId('category', context.accountId, id)) } });
      for (const c of categories) names.set(c.assetId, String(c.record.categoryName ?? ''));
    }
    return docs.map(({ record, idCategory }) => {
      record.idCategory = idCategory;
      record.categoryName = names.get(idCategory) ?? '';
      return record;
    });
  }
}
