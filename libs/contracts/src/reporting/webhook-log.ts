import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsOptional, IsString, Max, Min, ValidateNested } from 'class-validator';
import { IsAssetId } from '../assets/id-validators';
import { WEBHOOK_TRIGGERS, type WebhookTrigger } from '../assets/webhook-config';
import { IsDateTime } from './updates';
import { REPORTING_QUERY_LIMITS } from './queries';
import { checkQueryWindow } from './queries-dto/parse';
import { validateStrictBody } from './validate';
import { STRING_SCHEMA as STRING, COUNT_SCHEMA as COUNT, closedObjectSchema as object } from '../json-schema-parts';

/** POST /reporting/logs/webhooks (queue group `reporting`). */
export const WEBHOOK_LOG_SUBJECT = 'reporting.query.webhookLog';

/** How one attempt ended: `retrying` (failed, another attempt follows), `delivered` (2xx) or `failed` (the last attempt failed, or the address was refused). */
export const WEBHOOK_ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'failed'] as const;
export type WebhookAttemptOutcome = (typeof WEBHOOK_ATTEMPT_OUTCOMES)[number];

/** Rows (attempts) per page at most, and (config, node) pairs in a summary at most. */
export const WEBHOOK_LOG_LIMITS = { maxRows: 1000, defaultRows: 100, maxSummaryRows: 1000, pagingStartMax: 10_000_000 } as const;

export interface WebhookLogRequest {
  timeStart: string;
  timeEnd: string;
  webhookConfigIds?: string[];
  funnelIds?: string[];
  nodeIds?: string[];
  triggers?: WebhookTrigger[];
  outcomes?: WebhookAttemptOutcome[];
  paging?: { start?: number; length?: number };
}

/** One delivery attempt. */
export interface WebhookLogRow {
  /** When the attempt ended. */
  time: string;
  /** The `webhook-id` the receiver saw (the same on every attempt of a delivery). */
  deliveryId: string;
  /** What triggered it: the webhook node's hit id (`node_execution`), or `<jobId>:<rowIndex>` of the conversion or custom event row. */
  eventId: string;
  trigger: WebhookTrigger;
  idWebhookConfig: string;
  /** The webhook node, `""` for an `allFunnels` config no node of the funnel names. */
  idNode: string;
  idFunnel: string;
  hitId: string;
  attempt: number;
  outcome: WebhookAttemptOutcome;
  /** The receiver's status; null when no answer came. */
  httpStatus: number | null;
  latencyMs: number;
  error: string | null;
}

/** The attempts of one config (and node) in the window. */
export interface WebhookLogSummary {
  idWebhookConfig: string;
  idNode: string;
  /** Distinct deliveries (webhook ids) attempted. */
  deliveries: number;
  /** Attempts answered 2xx (a delivery succeeds once). */
  successes: number;
  /** Attempts that failed, by the receiver's status (`"none"`: no answer: timeout, refused, connection error). */
  failuresByStatus: Record<string, number>;
  /** Deliveries given up (their last attempt failed). */
  failedDeliveries: number;
  attempts: number;
  /** Attempts after a delivery's first. */
  retries: number;
  averageLatencyMs: number;
  p95LatencyMs: number;
}

export interface WebhookLogReport {
  summary: WebhookLogSummary[];
  rows: WebhookLogRow[];
  rowsReturned: number;
  rowsTotal: number;
}

const IdList = () => [IsOptional(), IsArray(), ArrayMaxSize(REPORTING_QUERY_LIMITS.maxFilterValues), IsString({ each: true }), IsAssetId({ each: true })];
function apply(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => decorators.forEach((decorator) => decorator(target, key));
}

/** Webhook log paging: `start` attempts skipped (0), `length` attempts (1..1000, default 100). */
export class WebhookLogPagingDto {
  @IsOptional() @IsInt() @Min(0) @Max(WEBHOOK_LOG_LIMITS.pagingStartMax) start?: number;
  @IsOptional() @IsInt() @Min(1) @Max(WEBHOOK_LOG_LIMITS.maxRows) length?: number;
}

/** POST /reporting/logs/webhooks */
export class WebhookLogRequestDto implements WebhookLogRequest {
  @IsString() @IsDateTime() timeStart!: string;
  @IsString() @IsDateTime() timeEnd!: string;
  @apply(...IdList()) webhookConfigIds?: string[];
  @apply(...IdList()) funnelIds?: string[];
  @apply(...IdList()) nodeIds?: string[];
  @IsOptional() @IsArray() @ArrayMaxSize(WEBHOOK_TRIGGERS.length) @IsIn(WEBHOOK_TRIGGERS, { each: true }) triggers?: WebhookTrigger[];
  @IsOptional() @IsArray() @ArrayMaxSize(WEBHOOK_ATTEMPT_OUTCOMES.length) @IsIn(WEBHOOK_ATTEMPT_OUTCOMES, { each: true }) outcomes?: WebhookAttemptOutcome[];
  @IsOptional() @ValidateNested() @Type(() => WebhookLogPagingDto) paging?: WebhookLogPagingDto;
}

/** POST /reporting/logs/webhooks: the body checked (400 naming each bad field), window at most 366 days. */
export function parseWebhookLogRequest(body: unknown): WebhookLogRequest {
  const request = validateStrictBody(WebhookLogRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** The answer of POST /reporting/logs/webhooks as the API document shows it. */
export const WEBHOOK_LOG_SCHEMA = object({
  summary: {
    type: 'array',
    description: 'per webhook config and node, over the attempts in the window that pass the filters (all of them, whatever the page)',
    items: object({
      idWebhookConfig: STRING,
      idNode: { type: 'string', description: '"" for an allFunnels config no node of the funnel names' },
      deliveries: { ...COUNT, description: 'distinct deliveries (webhook ids) attempted' },
      successes: { ...COUNT, description: 'attempts answered 2xx' },
      failuresByStatus: {
        type: 'object',
        additionalProperties: COUNT,
        description: 'failed attempts by the receiver\'s HTTP status; "none" when no answer came (timeout, refused address, connection error)',
      },
      failedDeliveries: { ...COUNT, description: 'deliveries given up (their last attempt failed)' },
      attempts: COUNT,
      retries: { ...COUNT, description: "attempts after a delivery's first" },
      averageLatencyMs: { type: 'number', minimum: 0 },
      p95LatencyMs: { type: 'number', minimum: 0, description: 'nearest rank: the smallest latency at or above 95% of the attempts' },
    }),
  },
  rows: {
    type: 'array',
    description: 'the attempts, newest first (time, then delivery id and attempt, descending)',
    items: object({
      time: { type: 'string', format: 'date-time', description: 'when the attempt ended' },
      deliveryId: { type: 'string', description: 'the webhook-id the receiver saw' },
      eventId: STRING,
      trigger: { type: 'string', enum: [...WEBHOOK_TRIGGERS] },
      idWebhookConfig: STRING,
      idNode: STRING,
      idFunnel: STRING,
      hitId: STRING,
      attempt: { type: 'integer', minimum: 1 },
      outcome: { type: 'string', enum: [...WEBHOOK_ATTEMPT_OUTCOMES] },
      httpStatus: { type: ['integer', 'null'] },
      latencyMs: { type: 'number', minimum: 0 },
      error: { type: ['string', 'null'] },
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});
