import { IsIn, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';
import { ASSET_STATUSES, AssetStatus, NAME_MAX, NAME_MIN } from './requests';

/** FunnelVisitorTag. `categoryName` is derived from the category on every read; a value sent in is ignored. */
export class VisitorTagDto {
  @IsString() @IsAssetId() idTag!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) tagName!: string;
  @IsOptional() @IsIn(ASSET_STATUSES) status?: AssetStatus;
  @IsOptional() @IsString() @MaxLength(64) color?: string;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() idCategory?: string;
  @IsOptional() @IsString() @MaxLength(NAME_MAX) categoryName?: string;
  @IsOptional() @IsString() @MaxLength(NAME_MAX) tagType?: string;
  @IsOptional() @IsString() @MaxLength(1024) tagValue?: string;
}

export const VISITOR_TAG_KIND: AssetKindDescriptor = {
  kind: 'visitortag',
  eventPrefix: 'VisitorTag',
  idField: 'idTag',
  idsParam: 'idTags',
  nameField: 'tagName',
  recordDto: VisitorTagDto,
  paths: ['/visitortag'],
  operations: [...COMMON_ASSET_OPERATIONS],
  categoryType: 'visitorTag',
  list: {
    statusRequired: false,
    defaultStatus: 'not-deleted',
    filters: [{ param: 'idCategory', field: 'idCategory', required: false }],
  },
  findByStatusFilters: [{ param: 'idCategory', field: 'idCategory', required: false }],
  isParent: false,
  derivedFields: ['categoryName'],
};
