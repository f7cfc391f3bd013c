import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { IsAssetId } from '../assets/id-validators';
import { REPORTING_QUERY_LIMITS } from '../reporting/queries';
import { checkQueryWindow } from '../reporting/queries-dto/parse';
import { IsDateTime } from '../reporting/updates';
import { validateStrictBody } from '../reporting/validate';
import { SYNC_KINDS, type SyncKind } from './subjects';
import { STRING_SCHEMA as STRING, COUNT_SCHEMA as COUNT, closedObjectSchema as object } from '../json-schema-parts';

// The integration deliveries log (issue 24): what the integrations' jobs pulled in (cost rows) or
// sent out (conversions), per job and per row, with the provider's answer. Kept in the reporting
// warehouse beside the other logs and read as they are: POST /reporting/logs/integrationdeliveries.

/** POST /reporting/logs/integrationdeliveries (queue group `reporting`; permission `reporting:read`). */
export const INTEGRATION_DELIVERY_LOG_SUBJECT = 'reporting.query.integrationDeliveryLog';

/**
 * What became of a row:
 * - `applied`: a pulled cost row, put into a reporting cost update (`reportingJobId`);
 * - `accepted`: a conversion the provider took;
 * - `rejected`: a conversion the provider refused (`answer` says why); sending it again will not help;
 * - `failed`: the call did not go through (the provider refused the request, the token expired, a
 *   5xx or rate limit: then the job's next attempt logs its rows again); a cost row of ad account
 *   without rows (`cost` null) when pulling its spend failed.
 */
export const INTEGRATION_DELIVERY_STATUSES = ['applied', 'accepted', 'rejected', 'failed'] as const;
export type IntegrationDeliveryStatus = (typeof INTEGRATION_DELIVERY_STATUSES)[number];

/** Rows per page at most and by default; the most a provider's answer keeps (longer ones are cut). */
export const INTEGRATION_DELIVERY_LOG_LIMITS = { maxRows: 1000, defaultRows: 100, pagingStartMax: 10_000_000, answerMax: 1000 } as const;

export interface IntegrationDeliveryLogRequest {
  timeStart: string;
  timeEnd: string;
  integrationIds?: string[];
  kinds?: SyncKind[];
  statuses?: IntegrationDeliveryStatus[];
  jobIds?: string[];
  paging?: { start?: number; length?: number };
}

/** A pulled cost row: the spend of a campaign on a day of the ad account's time zone. */
export interface IntegrationDeliveryCost {
  campaignId: string;
  /** `YYYY-MM-DD` in the ad account's time zone. */
  day: string;
  /** Decimal text. */
  spend: string;
  currency: string;
}

/** A conversion sent. */
export interface IntegrationDeliveryConversion {
  /** The provider's deduplication id: `<hitId>:<transactionId>` (the hit id alone without a transaction). */
  eventId: string;
  hitId: string;
  transactionId: string;
  /** Decimal text; "" when none was sent. */
  value: string;
}

export interface IntegrationDeliveryLogRow {
  /** When the call ended. */
  time: string;
  idIntegration: string;
  provider: string;
  /** The sync job (GET /integrations/sync/{jobId}). */
  jobId: string;
  /** The job's attempt that made the call (from 1). */
  attempt: number;
  kind: SyncKind;
  adAccountId: string;
  /** The conversion goal sent to; "" for costs. */
  goalId: string;
  /** Cost: the reporting cost job the row went into; conversions: the reporting job that applied them ("" for an on-demand sync). */
  reportingJobId: string;
  /** The cost row (kind `cost`), or null: a conversion, or a pull that failed. */
  cost: IntegrationDeliveryCost | null;
  /** The conversion (kind `conversions`), else null. */
  conversion: IntegrationDeliveryConversion | null;
  status: IntegrationDeliveryStatus;
  /** The provider's answer (cut to 1,000 characters) or why the row failed or was refused; never a token. */
  answer: string | null;
}

export interface IntegrationDeliveryLogReport {
  rows: IntegrationDeliveryLogRow[];
  rowsReturned: number;
  rowsTotal: number;
}

/** An optional list of asset ids (at most 1,000). */
const IdList = (): PropertyDecorator => (target, key) =>
  [IsOptional(), IsArray(), ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues), IsString({ each: true }), IsAssetId({ each: true })].forEach((decorate) =>
    decorate(target, key),
  );

/** Paging: `start` rows skipped (0), `length` rows (1..1000, default 100). */
export class IntegrationDeliveryLogPagingDto {
  @IsOptional() @IsInt() @Min(0) @Max(INTEGRATION_DELIVERY_LOG_LIMITS.pagingStartMax) start?: number;
  @IsOptional() @IsInt() @Min(1) @Max(INTEGRATION_DELIVERY_LOG_LIMITS.maxRows) length?: number;
}

/** POST /reporting/logs/integrationdeliveries */
export class IntegrationDeliveryLogRequestDto implements IntegrationDeliveryLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @IdList() integrationIds?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(SYNC_KINDS.length) @IsIn(SYNC_KINDS, { each: true }) kinds?: SyncKind[];
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(INTEGRATION_DELIVERY_STATUSES.length)
  @IsIn(INTEGRATION_DELIVERY_STATUSES, { each: true })
  statuses?: IntegrationDeliveryStatus[];
  @IdList() jobIds?: string[];
  @IsOptional() @ValidateNested() @Type(() => IntegrationDeliveryLogPagingDto) paging?: IntegrationDeliveryLogPagingDto;
}

/** POST /reporting/logs/integrationdeliveries: the body checked (400 naming each bad field), window at most 366 days. */
export function parseIntegrationDeliveryLogRequest(body: unknown): IntegrationDeliveryLogRequest {
  const request = validateStrictBody(IntegrationDeliveryLogRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** The answer of POST /reporting/logs/integrationdeliveries as the API document shows it. */
export const INTEGRATION_DELIVERY_LOG_SCHEMA = object({
  rows: {
    type: 'array',
    description: 'the rows, newest first (time, then job and row, descending)',
    items: object({
      time: { type: 'string', format: 'date-time', description: 'when the call ended' },
      idIntegration: STRING,
      provider: STRING,
      jobId: { type: 'string', description: 'the sync job (GET /integrations/sync/{jobId})' },
      attempt: { type: 'integer', minimum: 1 },
      kind: { type: 'string', enum: [...SYNC_KINDS] },
      adAccountId: STRING,
      goalId: { type: 'string', description: '"" for costs' },
      reportingJobId: {
        type: 'string',
        description: 'cost: the reporting cost job the row went into; conversions: the reporting job that applied them ("" for an on-demand sync)',
      },
      cost: {
        oneOf: [object({ campaignId: STRING, day: { type: 'string', format: 'date' }, spend: STRING, currency: STRING }), { type: 'null' }],
        description: 'the pulled cost row (kind cost); null for a conversion or a pull that failed',
      },
      conversion: {
        oneOf: [object({ eventId: STRING, hitId: STRING, transactionId: STRING, value: STRING }), { type: 'null' }],
        description: 'the conversion sent (kind conversions)',
      },
      status: { type: 'string', enum: [...INTEGRATION_DELIVERY_STATUSES] },
      answer: { type: ['string', 'null'], description: "the provider's answer (cut to 1,000 characters), or why the row failed or was refused" },
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});
