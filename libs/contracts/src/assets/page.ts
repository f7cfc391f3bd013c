import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsNumber, IsOptional, IsString, Length, MaxLength, Min, ValidateNested } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

export const PAGE_TYPES = ['lander', 'offer'] as const;
export type PageType = (typeof PAGE_TYPES)[number];
export const REDIRECT_TYPES = ['301', '307', 'umr'] as const;
export const PAYOUT_TYPES = ['perConversion', 'revShare'] as const;
export const PAGE_URL_MAX = 4096;
export const PAGE_TAGS_MAX = 50;
export const PAGE_NOTES_MAX = 10_000;

/** An offer's payout and the offer source it comes from (offers only). */
export class OfferParamsDto {
  @IsString() @IsAssetId() idOfferSource!: string;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 6 }) @Min(0) payout = 0;
  @IsOptional() @IsIn(PAYOUT_TYPES) payoutType: (typeof PAYOUT_TYPES)[number] = 'perConversion';
}

/** Page (a lander or an offer). `baseURL` and the lander/offer rules are checked by the domain's page rules. */
export class PageDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idPage!: string;
  @IsIn(PAGE_TYPES) pageType!: PageType;
  @IsString() @Length(NAME_MIN, NAME_MAX) pageName!: string;
  @IsString() @Length(1, PAGE_URL_MAX) baseURL!: string;
  @IsOptional() @IsIn(REDIRECT_TYPES) redirectType: (typeof REDIRECT_TYPES)[number] = '307';
  @IsOptional() @IsArray() @ArrayMaxSize(PAGE_TAGS_MAX) @IsString({ each: true }) @Length(1, 64, { each: true }) tags: string[] = [];
  @IsOptional() @IsString() @MaxLength(PAGE_NOTES_MAX) notes = '';
  @IsOptional() @ValidateNested() @Type(() => OfferParamsDto) offerParams?: OfferParamsDto;
}

const PAGE_TYPE_FILTER = { param: 'pageType', field: 'pageType', required: false, allowed: PAGE_TYPES };

export const PAGE_KIND: AssetKindDescriptor = {
  kind: 'page',
  eventPrefix: 'Page',
  idField: 'idPage',
  idsParam: 'idPages',
  nameField: 'pageName',
  recordDto: PageDto,
  paths: ['/page'],
  operations: [...COMMON_ASSET_OPERATIONS],
  categoryTypeFrom: { field: 'pageType', types: { lander: 'lander', offer: 'offer' } },
  list: {
    statusRequired: true,
    defaultStatus: 'all',
    filters: [
      { ...PAGE_TYPE_FILTER, required: true },
      { param: 'idCategory', field: 'idCategory', required: false },
      { param: 'idOfferSource', field: 'offerParams.idOfferSource', required: false },
    ],
  },
  findByStatusFilters: [PAGE_TYPE_FILTER],
  findByCategoryFilters: [PAGE_TYPE_FILTER],
  isParent: false,
  derivedFields: ['categoryName'],
  immutableFields: ['pageType'],
  slimFields: ['pageName', 'pageType'],
};
