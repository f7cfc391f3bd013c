import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateBy, ValidateNested } from 'class-validator';
import { IsAssetId } from '../assets/id-validators';
import type { JsonSchema } from '../assets/asset-kind';
import { ServiceError } from '../errors';
import { validateBody } from '../validation';
import { REPORTING_QUERY_LIMITS, type PostbackLogRequest, type PostbackStatus } from './queries';
import { DATE_TIME_MESSAGE, isDateTime } from './updates';

export const POSTBACK_STATUSES: readonly PostbackStatus[] = ['pending', 'delivered', 'failed', 'recorded'];
/** Rows per page when `paging.length` is absent. */
export const DEFAULT_POSTBACK_ROWS = 100;

const DAY_MS = 24 * 3600 * 1000;

const IsDateTime = () =>
  ValidateBy({ name: 'isIso8601', validator: { validate: (value) => isDateTime(value), defaultMessage: () => `$property ${DATE_TIME_MESSAGE}` } });

export class PostbackLogPagingDto {
  @IsOptional() @IsInt() @Min(0) start?: number;
  @IsOptional() @IsInt() @Min(1) @Max(REPORTING_QUERY_LIMITS.maxPostbackRows) length?: number;
}

/** The body of POST /reporting/logs/postbacks (the route's document and its validation). */
export class PostbackLogRequestDto implements PostbackLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues)
  @IsString({ each: true })
  @IsAssetId({ each: true })
  trafficSourceIds?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues) @IsString({ each: true }) @IsAssetId({ each: true }) funnelIds?: string[];
  @IsOptional()
  @IsArray()
  @IsIn(POSTBACK_STATUSES, { each: true, message: `$property must list statuses of ${POSTBACK_STATUSES.join(', ')}` })
  statuses?: PostbackStatus[];
  @IsOptional() @ValidateNested() @Type(() => PostbackLogPagingDto) paging?: PostbackLogPagingDto;
}

const FIELDS = ['timeStart', 'timeEnd', 'trafficSourceIds', 'funnelIds', 'statuses', 'paging'];

/** A validated postback log request: the window in epoch ms and the page's bounds filled in. */
export interface PostbackLogWindow {
  startMs: number;
  endMs: number;
  trafficSourceIds?: string[];
  funnelIds?: string[];
  statuses?: PostbackStatus[];
  start: number;
  length: number;
}

/**
 * The body of POST /reporting/logs/postbacks, validated: times
 * in RFC 3339 (start inclusive, end exclusive, at most 366 days apart), filters of asset ids and
 * statuses (an empty list filters nothing), `paging { start (0), length (1..1000, 100) }`. A field
 * the request does not have is a 400 naming it and the fields it does have.
 */
export function parsePostbackLogRequest(body: unknown): PostbackLogWindow {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const unknown = Object.keys(body).find((key) => !FIELDS.includes(key));
    if (unknown !== undefined) {
      throw ServiceError.invalidField(unknown, 'unknownField', `${unknown} is not a field of the postback log request (its fields: ${FIELDS.join(', ')})`);
    }
  }
  const dto = validateBody(PostbackLogRequestDto, body);
  const startMs = Date.parse(dto.timeStart);
  const endMs = Date.parse(dto.timeEnd);
  if (!(endMs > startMs)) throw ServiceError.invalidField('timeEnd', 'isAfterStart', 'timeEnd must be after timeStart');
  if (endMs - startMs > REPORTING_QUERY_LIMITS.maxWindowDays * DAY_MS) {
    throw ServiceError.invalidField('timeEnd', 'maxWindow', `timeEnd must be at most ${REPORTING_QUERY_LIMITS.maxWindowDays} days after timeStart`);
  }
  return {
    startMs,
    endMs,
    trafficSourceIds: dto.trafficSourceIds,
    funnelIds: dto.funnelIds,
    statuses: dto.statuses,
    start: dto.paging?.start ?? 0,
    length: dto.paging?.length ?? DEFAULT_POSTBACK_ROWS,
  };
}

const STRING = { type: 'string' };
const TIME = { type: 'string', format: 'date-time' };
const COUNT = { type: 'integer', minimum: 0 };
const object = (properties: Record<string, unknown>): JsonSchema => ({
  type: 'object',
  required: Object.keys(properties),
  properties,
  additionalProperties: false,
});

/** The answer of POST /reporting/logs/postbacks (PostbackLogReport) as the API document shows it. */
export const POSTBACK_LOG_REPORT_SCHEMA = object({
  rows: {
    type: 'array',
    items: object({
      time: TIME,
      jobId: STRING,
      rowIndex: COUNT,
      hitId: STRING,
      idTrafficSource: STRING,
      idFunnel: STRING,
      url: STRING,
      kind: { type: 'string', enum: ['postbackUrl', 'pixelUrl', 'javascript'] },
      status: { type: 'string', enum: [...POSTBACK_STATUSES] },
      attempts: COUNT,
      lastError: { type: ['string', 'null'] },
      updatedAt: TIME,
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});
