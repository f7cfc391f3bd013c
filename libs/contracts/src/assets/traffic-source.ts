import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsNumber, IsObject, IsOptional, IsString, Length, Matches, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import { AssetKindDescriptor, COMMON_ASSET_OPERATIONS } from './asset-kind';
import { DECIMAL_TEXT, PlacedAssetDto } from './common-fields';
import { IsAssetId } from './id-validators';
import { NAME_MAX, NAME_MIN } from './requests';

export const COST_TYPES = ['cpe', 'cpa'] as const;
export const POSTBACK_TYPES = ['none', 'postbackUrl', 'pixelUrl', 'javascript'] as const;
/** The slots of a traffic source's tracking fields: `campaign`, `external`, `c1`..`c20`. */
export const TRACKING_FIELD_SLOTS: readonly string[] = ['campaign', 'external', ...Array.from({ length: 20 }, (_, i) => `c${i + 1}`)];
/** A tracking field's URL parameter name. */
export const TRACKING_FIELD_NAME = /^[A-Za-z0-9_ -]{1,64}$/;
export const TRACKING_FIELD_VALUE_MAX = 256;
export const POSTBACK_CODE_MAX = 4096;

/** One tracking field: the URL parameter `name`, its token `value`; `previousName` is set by the service on a rename. */
export interface TrackingField {
  name: string;
  value: string;
  previousName: string;
  status: 'active' | 'archived';
}

export class PostbackDto {
  @IsOptional() @IsIn(POSTBACK_TYPES) postbackType: (typeof POSTBACK_TYPES)[number] = 'none';
  @IsOptional() @IsString() @MaxLength(POSTBACK_CODE_MAX) postbackCode = '';
}

/** TrafficSource. `trackingFieldSlots` is checked by the domain's traffic-source rules (slot names, field shape, unique names). */
export class TrafficSourceDto extends PlacedAssetDto {
  @IsString() @IsAssetId() idTrafficSource!: string;
  @IsString() @Length(NAME_MIN, NAME_MAX) trafficSourceName!: string;
  @IsOptional() @IsIn(COST_TYPES) costType: (typeof COST_TYPES)[number] = 'cpe';
  /** Deprecated: decimal text >= 0 with up to 6 decimals, or "". */
  @IsOptional()
  @IsString()
  @Matches(new RegExp(`^$|${DECIMAL_TEXT.source}`), { message: '$property must be a decimal >= 0 with up to 6 decimals, or ""' })
  defaultCost = '';
  @IsOptional() @IsObject() trackingFieldSlots: Record<string, TrackingField> = {};
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(500) incomingCostModifier = 100;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(500) outgoingRevenueModifier = 100;
  @IsOptional() @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(100) outgoingPostbackProbability = 100;
  @IsOptional() @IsBoolean() disableZeroRevenuePostbacks = false;
  @IsOptional() @ValidateNested() @Type(() => PostbackDto) postback: PostbackDto = new PostbackDto();
}

export const TRAFFIC_SOURCE_KIND: AssetKindDescriptor = {
  kind: 'trafficsource',
  eventPrefix: 'TrafficSource',
  idField: 'idTrafficSource',
  idsParam: 'idTrafficSources',
  nameField: 'trafficSourceName',
  recordDto: TrafficSourceDto,
  paths: ['/trafficsource'],
  operations: [...COMMON_ASSET_OPERATIONS],
  categoryType: 'trafficsources',
  list: { statusRequired: true, defaultStatus: 'all', filters: [{ param: 'idCategory', field: 'idCategory', required: false }] },
  findByStatusFilters: [],
  isParent: false,
  derivedFields: ['categoryName'],
  slimFields: ['trafficSourceName'],
};
