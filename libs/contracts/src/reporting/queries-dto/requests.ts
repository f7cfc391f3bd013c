import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsTimeZone,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
  ValidationArguments,
  registerDecorator,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { IsAssetId } from '../../assets/id-validators';
import { IsDateTime } from '../updates';
import {
  INCOMING_POSTBACK_OUTCOMES,
  INCOMING_POSTBACK_SOURCES,
  type IncomingPostbackLogRequest,
  type IncomingPostbackOutcome,
  type IncomingPostbackSource,
} from '../incoming-postbacks';
import {
  ColumnFilter,
  DrilldownRequest,
  ExplorerHitRequest,
  MIDDLEWARE_LOG_REASONS,
  MiddlewareLogReason,
  MiddlewareLogRequest,
  PostbackLogRequest,
  PostbackStatus,
  RawEventsRequest,
  REPORTING_QUERY_LIMITS,
  ReportGrouping,
  SortingColumn,
  TimeAttribution,
  TopLevelFilter,
  ViewType,
} from '../queries';

/* The request bodies of the reporting queries (queries.ts) as class-validator DTOs: shapes, types,
 * enums and bounds. Attribute, metric and column names are strings here; the reporting service
 * resolves them against its catalogue (400 `REPORTING.UNKNOWN_NAME` with the nearest name). */

/** Bounds of the query bodies besides REPORTING_QUERY_LIMITS. */
export const REPORTING_QUERY_FIELD_LIMITS = Object.freeze({
  /** An attribute, metric or column name (key or label). */
  nameMax: 128,
  /** One filter value (an asset id, or a text with `*` wildcards). */
  filterValueMax: 1024,
  /** Named columns (metrics, sorting columns, column filters) or raw-event filters in one request: more than the catalogue has. */
  namedColumnsMax: 100,
  /** An IANA zone name. */
  timeZoneMax: 64,
  /** A raw-events cursor (opaque, from `nextCursor`). */
  cursorMax: 512,
  /** The largest `paging.start`. */
  pagingStartMax: 1_000_000_000,
});

export const VIEW_TYPES: readonly ViewType[] = ['flat', 'tree'];
export const TIME_ATTRIBUTIONS: readonly TimeAttribution[] = ['entrance', 'event'];
export const SORTING_ORDERS: readonly SortingColumn['order'][] = ['asc', 'desc'];
export const POSTBACK_LOG_STATUSES: readonly PostbackStatus[] = ['pending', 'delivered', 'failed', 'recorded'];

/** A metric filter: `<`, `<=`, `>` or `>=`, then a number (`">= 10"`, `"<0.5"`, `"> -3"`). */
export const COLUMN_FILTER_PATTERN = /^\s*(<=|>=|<|>)\s*(-?\d{1,15}(?:\.\d{1,9})?)\s*$/;

/** The operator and number of a metric filter, or undefined when it is not one (COLUMN_FILTER_PATTERN). */
export function parseColumnFilter(filter: string): { operator: '<' | '<=' | '>' | '>='; value: number } | undefined {
  const match = COLUMN_FILTER_PATTERN.exec(filter);
  return match ? { operator: match[1] as '<' | '<=' | '>' | '>=', value: Number(match[2]) } : undefined;
}

const L = REPORTING_QUERY_FIELD_LIMITS;

const apply =
  (...decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, property) => {
    for (const decorator of decorators) decorator(target, property);
  };

/** An attribute, metric or column name: a non-empty string (the service checks it names one). */
const Name = () => apply(IsString(), MinLength(1), MaxLength(L.nameMax));

/** A list of filter values: at most maxFilterValues strings of at most filterValueMax characters. */
const FilterValues = () =>
  apply(IsOptional(), IsArray(), ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues), IsString({ each: true }), MaxLength(L.filterValueMax, { each: true }));

/** A list of asset ids (a filter by traffic source, funnel ...). */
const IdList = () => apply(IsOptional(), IsArray(), ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues), IsString({ each: true }), IsAssetId({ each: true }));

/** A grouping and its filters (also a raw-events filter, where `groupBy` names the attribute filtered). */
export class ReportGroupingDto implements ReportGrouping {
  /** An attribute key (`country`) or label ("Location: Country"). */
  @Name() groupBy!: string;
  /** Keep hits matching at least one: asset ids for asset attributes; case-insensitive texts with `*` wildcards otherwise. */
  @FilterValues() whitelistFilters?: string[];
  /** Drop hits matching any. */
  @FilterValues() blacklistFilters?: string[];
}

const isFilterValueOrNull = (value: unknown) => value === null || (typeof value === 'string' && value.length <= L.filterValueMax);

/** Each entry a string of at most filterValueMax characters, or null (the N/A row). */
function IsFilterValueOrNullEach(): PropertyDecorator {
  return (target, propertyName) => {
    JSONSchema((schema) => ({ ...schema, items: { type: ['string', 'null'], maxLength: L.filterValueMax } }))(target, propertyName as string);
    registerDecorator({
      name: 'isStringOrNull',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ property }: ValidationArguments) => `each value of ${property} must be a string of at most ${L.filterValueMax} characters, or null (N/A)`,
      },
      validator: { validate: (value: unknown) => !Array.isArray(value) || value.every(isFilterValueOrNull) },
    });
  };
}

/** Pins one level of a tree: the parent row's `raw` value of that grouping (null: the N/A row). */
export class TopLevelFilterDto implements TopLevelFilter {
  @Name() groupBy!: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues)
  @IsFilterValueOrNullEach()
  whitelistFilters!: (string | null)[];
}

export class ColumnFilterDto implements ColumnFilter {
  /** A metric key or label. */
  @Name() columnName!: string;
  @IsString()
  @Matches(COLUMN_FILTER_PATTERN, { message: '$property must be <, <=, > or >= and a number, e.g. ">= 10"' })
  filter!: string;
}

export class ColumnFiltersDto {
  @IsArray() @ArrayMaxSize(L.namedColumnsMax) @ValidateNested({ each: true }) @Type(() => ColumnFilterDto) filterColumns!: ColumnFilterDto[];
}

export class SortingColumnDto implements SortingColumn {
  /** A metric or grouping key or label. */
  @Name() columnName!: string;
  @IsIn(SORTING_ORDERS) order!: 'asc' | 'desc';
}

export class SortingDto {
  @IsArray() @ArrayMaxSize(L.namedColumnsMax) @ValidateNested({ each: true }) @Type(() => SortingColumnDto) sortingColumns!: SortingColumnDto[];
}

/** Drilldown paging: `start` (0) rows skipped, `length` (50) rows, at most 10,000. */
export class DrilldownPagingDto {
  @IsOptional() @IsInt() @Min(0) @Max(L.pagingStartMax) start?: number;
  @IsOptional() @IsInt() @Min(1) @Max(REPORTING_QUERY_LIMITS.maxPageLength) length?: number;
}

export class DrilldownOptionsDto {
  /** `flat` (default) or `tree`. */
  @IsOptional() @IsIn(VIEW_TYPES) viewType?: ViewType;
  /** `entrance` (default: conversions and costs at the visit's time) or `event` (at the conversion's time). */
  @IsOptional() @IsIn(TIME_ATTRIBUTIONS) timeAttribution?: TimeAttribution;
  @IsOptional() @IsBoolean() showArchivedAssets?: boolean;
}

/** A time zone: an IANA name (`America/New_York`, `UTC`). */
const TimeZone = () =>
  apply(IsString(), MaxLength(L.timeZoneMax), IsTimeZone({ message: '$property must be an IANA time zone name, e.g. America/New_York' }), ((target, property) =>
    JSONSchema({ type: 'string', maxLength: L.timeZoneMax, description: 'an IANA time zone name, e.g. America/New_York (default UTC)' })(
      target,
      property as string,
    )) as PropertyDecorator);

/** POST /reporting/drilldown/ */
export class DrilldownRequestDto implements DrilldownRequest {
  /** RFC 3339 with a zone, inclusive. */
  @IsString() @IsDateTime() timeStart!: string;
  /** RFC 3339 with a zone, exclusive; after timeStart, at most 366 days after it. */
  @IsString() @IsDateTime() timeEnd!: string;
  @IsOptional() @TimeZone() timeZone?: string;
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(REPORTING_QUERY_LIMITS.maxGroupings)
  @ValidateNested({ each: true })
  @Type(() => ReportGroupingDto)
  groupings!: ReportGroupingDto[];
  /** Tree expansion: the parent row's values of the first k groupings (k < groupings). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(REPORTING_QUERY_LIMITS.maxGroupings - 1)
  @ValidateNested({ each: true })
  @Type(() => TopLevelFilterDto)
  topLevelFilters?: TopLevelFilterDto[];
  @IsOptional() @ValidateNested() @Type(() => ColumnFiltersDto) columnFilters?: ColumnFiltersDto;
  @IsOptional() @ValidateNested() @Type(() => SortingDto) sorting?: SortingDto;
  @IsOptional() @ValidateNested() @Type(() => DrilldownPagingDto) paging?: DrilldownPagingDto;
  @IsOptional() @ValidateNested() @Type(() => DrilldownOptionsDto) options?: DrilldownOptionsDto;
  /** Metric keys or labels, in the order wanted; absent or empty: all. */
  @IsOptional() @IsArray() @ArrayMaxSize(L.namedColumnsMax) @IsString({ each: true }) @MaxLength(L.nameMax, { each: true }) metrics?: string[];
}

/** POST /reporting/rawevents/ */
export class RawEventsRequestDto implements RawEventsRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IsOptional() @IsArray() @ArrayMaxSize(L.namedColumnsMax) @ValidateNested({ each: true }) @Type(() => ReportGroupingDto) filters?: ReportGroupingDto[];
  /** The previous page's `nextCursor`. */
  @IsOptional() @IsString() @MinLength(1) @MaxLength(L.cursorMax) cursor?: string;
  /** Hits per page: 1..1000 (default 100). */
  @IsOptional() @IsInt() @Min(1) @Max(REPORTING_QUERY_LIMITS.maxRawEvents) limit?: number;
}

/** POST /reporting/explorer/visitor/ by visitor: its hits in a window. */
export class ExplorerVisitorRequestDto {
  @IsString() @IsAssetId() visitorId!: string;
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
}

/** POST /reporting/explorer/hit/ (and /reporting/explorer/visitor/ by one of the visitor's hits). */
export class ExplorerHitRequestDto implements ExplorerHitRequest {
  @IsString() @IsAssetId() hitId!: string;
}

/** Postback log paging: `start` rows skipped (0), `length` rows, at most 1,000. */
export class PostbackLogPagingDto {
  @IsOptional() @IsInt() @Min(0) @Max(L.pagingStartMax) start?: number;
  @IsOptional() @IsInt() @Min(1) @Max(REPORTING_QUERY_LIMITS.maxPostbackRows) length?: number;
}

/** POST /reporting/logs/postbacks/ */
export class PostbackLogRequestDto implements PostbackLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IdList() trafficSourceIds?: string[];
  @IdList() funnelIds?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(POSTBACK_LOG_STATUSES.length) @IsIn(POSTBACK_LOG_STATUSES, { each: true }) statuses?: PostbackStatus[];
  @IsOptional() @ValidateNested() @Type(() => PostbackLogPagingDto) paging?: PostbackLogPagingDto;
}

/** POST /reporting/logs/incomingpostbacks/ */
export class IncomingPostbackLogRequestDto implements IncomingPostbackLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(INCOMING_POSTBACK_OUTCOMES.length)
  @IsIn(INCOMING_POSTBACK_OUTCOMES, { each: true })
  outcomes?: IncomingPostbackOutcome[];
  @IsOptional() @IsArray() @ArrayMaxSize(INCOMING_POSTBACK_SOURCES.length) @IsIn(INCOMING_POSTBACK_SOURCES, { each: true }) sources?: IncomingPostbackSource[];
  @IdList() trafficSourceIds?: string[];
  @IdList() funnelIds?: string[];
  @IdList() hitIds?: string[];
  @IsOptional() @ValidateNested() @Type(() => PostbackLogPagingDto) paging?: PostbackLogPagingDto;
}

/** POST /reporting/logs/middleware/ */
export class MiddlewareLogRequestDto implements MiddlewareLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IdList() middlewareConfigIds?: string[];
  @IdList() funnelIds?: string[];
  @IdList() nodeIds?: string[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MIDDLEWARE_LOG_REASONS.length)
  @IsIn(MIDDLEWARE_LOG_REASONS, { each: true })
  defaultReasons?: MiddlewareLogReason[];
  @IsOptional() @ValidateNested() @Type(() => PostbackLogPagingDto) paging?: PostbackLogPagingDto;
}
