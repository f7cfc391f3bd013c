import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsISO31661Alpha2,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
  ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsAssetId } from '../assets/id-validators';
import type { JsonSchema } from '../assets/asset-kind';
import { DECIMAL_TEXT } from '../assets/common-fields';
import { TRACKING_FIELD_SLOTS, TRACKING_FIELD_VALUE_MAX } from '../assets/traffic-source';

/** Rows per request: conversions (above: 413), custom events, cost segments. */
export const REPORTING_LIMITS = Object.freeze({
  conversionRows: 10_000,
  customEventRows: 10,
  costSegments: 1000,
  /** Ids, countries, visitors or IPs in one filter list. */
  filterList: 1000,
  /** The longest time window of a cost or reset update. */
  windowDays: 366,
  transactionIdMax: 256,
  customEventNumberMax: 10,
  customEventCountMax: 1_000_000,
});

export const POSTBACK_CALLS = ['none', 'onlyOnce', 'all'] as const;
export type PostbackCalls = (typeof POSTBACK_CALLS)[number];
export const SEGMENT_COST_TYPES = ['costForWholeSegment', 'costPerEntrance'] as const;
export type SegmentCostType = (typeof SEGMENT_COST_TYPES)[number];

/** Decimal text: an optional minus, up to 12 digits, up to 6 decimals. */
export const SIGNED_DECIMAL_TEXT = /^-?\d{1,12}(\.\d{1,6})?$/;
/** ISO 3166-1 alpha-2, upper case. */
export const COUNTRY_CODE = /^[A-Z]{2}$/;

/** A decimal given as a JSON number or as text, as canonical text (`12`, `0.25`), or undefined when it is not one. */
/** Decimal text already in canonical form (no leading zeros, no trailing fraction zeros): the usual case, taken as it is. */
const CANONICAL_DECIMAL = /^-?(?:0|[1-9]\d{0,11})(?:\.\d{0,5}[1-9])?$/;

export function decimalText(value: unknown): string | undefined {
  if (typeof value === 'string' && CANONICAL_DECIMAL.test(value)) return value === '-0' ? '0' : value;
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value : undefined;
  if (text === undefined || !SIGNED_DECIMAL_TEXT.test(text)) return undefined;
  const [whole, fraction = ''] = text.split('.');
  const trimmed = fraction.replace(/0+$/, '');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace('-', '').replace(/^0+(?=\d)/, '');
  const out = `${sign}${digits}${trimmed ? `.${trimmed}` : ''}`;
  return out === '-0' ? '0' : out;
}

/** A decimal (number or text, up to 6 decimals) >= 0, or also exactly -1 when `minusOne` is allowed. */
export function isReportingDecimal(value: unknown, minusOne = false): boolean {
  const text = decimalText(value);
  return text !== undefined && (!text.startsWith('-') || (minusOne && text === '-1'));
}

/** The API document's schema of a decimal field (isReportingDecimal). */
function decimalSchema(minusOne: boolean): JsonSchema {
  return {
    anyOf: [
      { type: 'number', minimum: 0, exclusiveMaximum: 1e12 },
      { type: 'string', pattern: DECIMAL_TEXT.source },
      ...(minusOne ? [{ const: -1 }, { type: 'string', pattern: '^-0*1(\\.0{1,6})?$' }] : []),
    ],
    description: `a decimal >= 0 with up to 6 decimals, as a JSON number or as text${minusOne ? '; -1 removes the conversions' : ''}`,
  };
}

function IsDecimalValue(minusOne = false): PropertyDecorator {
  return (target, propertyName) => {
    JSONSchema(decimalSchema(minusOne))(target, propertyName as string);
    registerDecorator({
      name: 'isDecimal',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property }: ValidationArguments) =>
          `${property} must be a decimal >= 0 with up to 6 decimals${minusOne ? ', or -1 (remove the conversions)' : ''}`,
      },
      validator: { validate: (value: unknown) => isReportingDecimal(value, minusOne) },
    });
  };
}

/** An RFC 3339 date-time with a zone (`2026-11-20T10:00:00Z`, `2026-11-20T12:00:00.5+02:00`) on a real calendar day: the API document's `format: date-time`. */
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt]([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

export function isDateTime(value: unknown): boolean {
  const match = typeof value === 'string' ? DATE_TIME.exec(value) : null;
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

export const DATE_TIME_MESSAGE = 'must be a date-time with a zone (RFC 3339, e.g. 2026-11-20T10:00:00Z)';

/** A time field: isDateTime (error code `isIso8601`, as before), which the API document shows as `format: date-time`. */
export function IsDateTime(): PropertyDecorator {
  return (target, propertyName) => {
    // In place of what class-validator-jsonschema says of its own isIso8601 (a date or a date-time).
    JSONSchema(() => ({ type: 'string', format: 'date-time' }))(target, propertyName as string);
    registerDecorator({
      name: 'isIso8601',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: ({ property }: ValidationArguments) => `${property} ${DATE_TIME_MESSAGE}` },
      validator: { validate: isDateTime },
    });
  };
}

const isTrackingFieldsFilter = (value: unknown) =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.entries(value).every(
    ([slot, values]) =>
      TRACKING_FIELD_SLOTS.includes(slot) &&
      Array.isArray(values) &&
      values.length <= REPORTING_LIMITS.filterList &&
      values.every((v) => typeof v === 'string' && v.length <= TRACKING_FIELD_VALUE_MAX),
  );

const TRACKING_FIELDS_FILTER_SCHEMA: JsonSchema = {
  type: 'object',
  propertyNames: { enum: [...TRACKING_FIELD_SLOTS] },
  additionalProperties: { type: 'array', maxItems: REPORTING_LIMITS.filterList, items: { type: 'string', maxLength: TRACKING_FIELD_VALUE_MAX } },
};

/** `{ slot: [values] }`: slots `campaign`, `external`, `c1`..`c20`; values strings of up to 256 characters. */
function IsTrackingFieldsFilter(): PropertyDecorator {
  return (target, propertyName) => {
    JSONSchema(TRACKING_FIELDS_FILTER_SCHEMA)(target, propertyName as string);
    registerDecorator({
      name: 'isTrackingFieldsFilter',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property }: ValidationArguments) =>
          `${property} must map tracking-field slots (campaign, external, c1..c20) to lists of strings of up to ${TRACKING_FIELD_VALUE_MAX} characters`,
      },
      validator: { validate: isTrackingFieldsFilter },
    });
  };
}

/** ConvertedHit: a conversion of one hit. */
export class ConvertedHitDto {
  @IsString() @IsAssetId() hitId!: string;
  /** Decimal; -1 removes the hit's conversions. */
  @IsDecimalValue(true) payout!: number | string;
  @IsOptional() @IsString() @MaxLength(REPORTING_LIMITS.transactionIdMax) transactionId?: string;
  /** RFC 3339 date-time with a zone; default: when the job applies it. */
  @IsOptional() @IsString() @IsDateTime() time?: string;
}

/** PUT /reporting/update/conversions/ */
export class ConversionsUpdateDto {
  /**
   * Checked row by row by `checkConvertedHits` (the hot path: up to 10,000 rows), with ConvertedHitDto's
   * rules (its test holds the two together); the API document shows the rows as ConvertedHitDto.
   */
  @IsArray()
  @ArrayMinSize(1)
  @Type(() => ConvertedHitDto)
  @JSONSchema((schema, options) => ({ ...schema, items: { $ref: `${options.refPointerPrefix}ConvertedHitDto` } }))
  hits!: unknown[];
  @IsOptional() @IsIn(POSTBACK_CALLS) postbackCalls?: PostbackCalls;
  @IsOptional() @IsDecimalValue() overridePayout?: number | string;
  @IsOptional() @IsBoolean() disablePostbacks?: boolean;
  @IsOptional() @IsBoolean() forcePostbacks?: boolean;
}

/** CustomEventUploadHit */
export class CustomEventUploadHitDto {
  @IsString() @IsAssetId() hitId!: string;
  @IsInt() @Min(1) @Max(REPORTING_LIMITS.customEventNumberMax) eventNumber!: number;
  @IsOptional() @IsInt() @Min(1) @Max(REPORTING_LIMITS.customEventCountMax) count?: number;
  /** RFC 3339 date-time with a zone: when the events happened; default: the job's `queuedAt` (when the update was accepted), as a conversion's. */
  @IsOptional() @IsString() @IsDateTime() time?: string;
}

/** PUT /reporting/update/customevents/ */
export class CustomEventsUpdateDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REPORTING_LIMITS.customEventRows)
  @ValidateNested({ each: true })
  @Type(() => CustomEventUploadHitDto)
  hits!: CustomEventUploadHitDto[];
  @IsOptional() @IsIn(POSTBACK_CALLS) postbackCalls?: PostbackCalls;
  @IsOptional() @IsBoolean() disablePostbacks?: boolean;
}

/** A tracking-field condition of a cost segment. */
export class TrackingFieldConditionDto {
  @IsString() @IsIn(TRACKING_FIELD_SLOTS) key!: string;
  @IsString() @MaxLength(TRACKING_FIELD_VALUE_MAX) value!: string;
}

/** CostSegment */
export class CostSegmentDto {
  @IsDecimalValue() cost!: number | string;
  @IsIn(SEGMENT_COST_TYPES) costType!: SegmentCostType;
  @IsOptional()
  @IsString()
  @Matches(COUNTRY_CODE, { message: '$property must be an upper-case ISO 3166-1 alpha-2 country code' })
  @IsISO31661Alpha2()
  restrictToCountryCode?: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(TRACKING_FIELD_SLOTS.length)
  @ValidateNested({ each: true })
  @Type(() => TrackingFieldConditionDto)
  restrictToTrackingFields?: TrackingFieldConditionDto[];
}

/** PUT /reporting/update/cost/ */
export class CostUpdateDto {
  @IsArray() @ArrayMaxSize(REPORTING_LIMITS.filterList) @IsString({ each: true }) @IsAssetId({ each: true }) funnelIDs!: string[];
  @IsArray() @ArrayMaxSize(REPORTING_LIMITS.filterList) @IsString({ each: true }) @IsAssetId({ each: true }) trafficSourceIDs!: string[];
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REPORTING_LIMITS.costSegments)
  @ValidateNested({ each: true })
  @Type(() => CostSegmentDto)
  segments!: CostSegmentDto[];
}

const idList = () => [IsOptional(), IsArray(), ArrayMaxSize(REPORTING_LIMITS.filterList), IsString({ each: true }), IsAssetId({ each: true })];
const apply =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };

/** POST and DELETE /reporting/update/reset/ (ResetUpdateParams). */
export class ResetUpdateDto {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  /** Funnel groups (the spec's name for them is campaigns). */
  @apply(...idList()) restrictToCampaignIDs?: string[];
  @apply(...idList()) restrictToFunnelIDs?: string[];
  @apply(...idList()) restrictToTrafficSourceIDs?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(REPORTING_LIMITS.filterList)
  @IsString({ each: true })
  @Matches(COUNTRY_CODE, { each: true, message: '$property must list upper-case ISO 3166-1 alpha-2 country codes' })
  @IsISO31661Alpha2({ each: true })
  restrictToCountryCodes?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(REPORTING_LIMITS.filterList) @IsString({ each: true }) @IsAssetId({ each: true }) restrictToVisitorIDs?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(REPORTING_LIMITS.filterList) @IsString({ each: true }) @IsIP(undefined, { each: true }) restrictToIPs?: string[];
  /** `{ slot: [values] }`: AND across slots, OR within one slot's values. */
  @IsOptional() @IsObject() @IsTrackingFieldsFilter() restrictToTrackingFields?: Record<string, string[]>;
}
