import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId, IsAssetIdOrEmpty } from './id-validators';
import { PAGE_TYPES, PageType } from './page';
import { NAME_MAX, NAME_MIN } from './requests';

export const ROTATIONS = ['random', 'session'] as const;
export const PAGE_GROUP_PAGES_MAX = 100;
export const PAGE_WEIGHT_MAX = 10_000;

export class PageGroupEntryDto {
  @IsString() @IsAssetId() idPage!: string;
  @IsOptional() @IsInt() @Min(0) @Max(PAGE_WEIGHT_MAX) weight = 100;
}

/** PageGroup: weighted pages of one pageType; global, or local to one funnel (`restrictToFunnelId`). */
export class PageGroupDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idPageGroup!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) pageGroupName!: string;
  @IsIn(PAGE_TYPES) pageType!: PageType;
  @IsOptional() @IsString() @IsAssetIdOrEmpty() restrictToFunnelId = '';
  @IsOptional() @IsIn(ROTATIONS) rotation: (typeof ROTATIONS)[number] = 'random';
  @IsOptional() @IsArray() @ArrayMaxSize(PAGE_GROUP_PAGES_MAX) @ValidateNested({ each: true }) @Type(() => PageGroupEntryDto) pages: PageGroupEntryDto[] = [];
}

const PAGE_TYPE_FILTER = { param: 'pageType', field: 'pageType', required: false, allowed: PAGE_TYPES };

export const PAGE_GROUP_KIND: AssetKindDescriptor = {
  kind: 'pagegroup',
  eventPrefix: 'PageGroup',
  idField: 'idPageGroup',
  idsParam: 'idPageGroups',
  nameField: 'pageGroupName',
  recordDto: PageGroupDto,
  paths: ['/page/group', '/pagegroup'],
  operations: [...COMMON_ASSET_OPERATIONS, 'findByType'],
  categoryTypeFrom: { field: 'pageType', types: { lander: 'landerGroup', offer: 'offerGroup' } },
  scopeField: 'restrictToFunnelId',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ ...PAGE_TYPE_FILTER, required: true }] },
  findByStatusFilters: [PAGE_TYPE_FILTER],
  typeFilter: { ...PAGE_TYPE_FILTER, required: true },
  findByCategoryFilters: [
    {
      param: 'categoryType',
      field: 'pageType',
      required: true,
      allowed: ['landerGroup', 'offerGroup'],
      values: { landerGroup: 'lander', offerGroup: 'offer' },
    },
  ],
  isParent: false,
  derivedFields: ['categoryName'],
  docs: { slim: { pageCount: { type: 'integer', minimum: 0 } } },
  immutableFields: ['pageType', 'restrictToFunnelId'],
  slimFields: ['pageGroupName', 'pageType', 'restrictToFunnelId'],
};
