import { IsIn, IsObject, IsOptional, IsString, Length, MaxLength } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

export const QUERY_SEPARATORS = ['?', '&'] as const;
export const OFFER_QUERY_PARAMS_MAX = 50;
export const OFFER_QUERY_PARAM_KEY_MAX = 64;
export const OFFER_QUERY_PARAM_VALUE_MAX = 1024;
export const POSTBACK_PARAM_MAX = 64;

/** OfferSource. `queryParams` and `umrDomainOverride` are checked by the domain's offer-source rules. */
export class OfferSourceDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idOfferSource!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) offerSourceName!: string;
  /** Appended to offer URLs: parameter name to value (values may hold `{tokens}`). */
  @IsOptional() @IsObject() queryParams: Record<string, string> = {};
  @IsOptional() @IsIn(QUERY_SEPARATORS) querySeparator: (typeof QUERY_SEPARATORS)[number] = '?';
  /** The network's parameter names for the click id, transaction id and payout of its postbacks. */
  @IsOptional() @IsString() @MaxLength(POSTBACK_PARAM_MAX) postbackSubId = '';
  @IsOptional() @IsString() @MaxLength(POSTBACK_PARAM_MAX) postbackTxId = '';
  @IsOptional() @IsString() @MaxLength(POSTBACK_PARAM_MAX) postbackPayout = '';
  /** A bare host name used instead of the account's domain for UMR redirects, or "". */
  @IsOptional() @IsString() @MaxLength(253) umrDomainOverride = '';
}

export const OFFER_SOURCE_KIND: AssetKindDescriptor = {
  kind: 'offersource',
  eventPrefix: 'OfferSource',
  idField: 'idOfferSource',
  idsParam: 'idOfferSources',
  nameField: 'offerSourceName',
  recordDto: OfferSourceDto,
  paths: ['/offersource'],
  operations: [...COMMON_ASSET_OPERATIONS],
  categoryType: 'offersources',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName'],
  slimFields: ['offerSourceName'],
};
