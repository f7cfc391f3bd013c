import { IsIn, IsObject, IsOptional, IsString, Length } from 'class-validator';
import { AssetKindDescriptor } from './asset-kind';
import { IsAssetId } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';

export const CATEGORY_TYPES = [
  'trafficsources',
  'offersources',
  'lander',
  'offer',
  'landerGroup',
  'offerGroup',
  'condition',
  'visitorTag',
  'logicscript',
  'middlewareconfig',
  'webhookconfig',
] as const;
export type CategoryType = (typeof CATEGORY_TYPES)[number];

export class CategoryDto {
  @IsString() @IsAssetId() idCategory!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) categoryName!: string;
  @IsIn(CATEGORY_TYPES) categoryType!: CategoryType;
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  /** Reserved for the UI's own use; the UI may overwrite it, clients must not store data there. (Stored events of older versions call it `uiSettings`.) */
  @IsOptional() @IsObject() meta?: Record<string, unknown>;
}

export const CATEGORY_KIND: AssetKindDescriptor = {
  kind: 'category',
  eventPrefix: 'Category',
  idField: 'idCategory',
  idsParam: 'idCategories',
  nameField: 'categoryName',
  recordDto: CategoryDto,
  paths: ['/category'],
  operations: ['list', 'findById', 'findByIds', 'create', 'update', 'duplicate', 'delete', 'archive', 'unarchive'],
  list: {
    statusRequired: true,
    defaultStatus: 'all',
    filters: [{ param: 'categoryType', field: 'categoryType', required: true, allowed: CATEGORY_TYPES }],
  },
  findByStatusFilters: [],
  isParent: true,
  categoryTypeField: 'categoryType',
  immutableFields: ['categoryType'],
  renamedFields: { uiSettings: 'meta' },
};
