import { ValidationError, validateSync } from 'class-validator';
import { toDtoInstance } from '../dto-instance';
import { ErrorCodes, ErrorDetail, ServiceError } from '../errors';
import { ID_RULE, isValidAssetId } from '../ids';
import {
  ConversionsUpdateDto,
  CostUpdateDto,
  CustomEventsUpdateDto,
  PostbackCalls,
  REPORTING_LIMITS,
  ResetUpdateDto,
  SegmentCostType,
  DATE_TIME_MESSAGE,
  isDateTime,
  decimalText,
  isReportingDecimal,
} from './updates';
import { ReportingErrorCodes } from './subjects';

/** The validated updates as they are queued (decimals as canonical text, defaults filled in). */
export interface ConvertedHitRow {
  hitId: string;
  /** Decimal text; "-1" removes the hit's conversions. */
  payout: string;
  transactionId: string;
  /** ISO 8601, or undefined: when the job applies it. */
  time?: string;
}

export interface ConversionsUpdate {
  hits: ConvertedHitRow[];
  postbackCalls: PostbackCalls;
  /** Decimal text, or null: each row's own payout. */
  overridePayout: string | null;
  disablePostbacks: boolean;
  forcePostbacks: boolean;
}

export interface CustomEventRow {
  hitId: string;
  eventNumber: number;
  count: number;
  /** ISO 8601, or undefined: the job's `queuedAt`. */
  time?: string;
}

export interface CustomEventsUpdate {
  hits: CustomEventRow[];
  postbackCalls: PostbackCalls;
  disablePostbacks: boolean;
}

export interface CostSegment {
  /** Decimal text >= 0. */
  cost: string;
  costType: SegmentCostType;
  /** "" for any country. */
  restrictToCountryCode: string;
  restrictToTrackingFields: { key: string; value: string }[];
}

export interface CostUpdate {
  funnelIDs: string[];
  trafficSourceIDs: string[];
  timeStart: string;
  timeEnd: string;
  segments: CostSegment[];
}

export interface ResetUpdate {
  timeStart: string;
  timeEnd: string;
  restrictToCampaignIDs: string[];
  restrictToFunnelIDs: string[];
  restrictToTrafficSourceIDs: string[];
  restrictToCountryCodes: string[];
  restrictToVisitorIDs: string[];
  restrictToIPs: string[];
  restrictToTrackingFields: Record<string, string[]>;
}

const TYPE_RULES = new Set(['isString', 'isArray', 'isBoolean', 'isObject', 'isNumber', 'isInt', 'isDefined', 'isDecimal']);

/** `hits.3.eventNumber` -> `hits[3].eventNumber`. */
const fieldPath = (prefix: string, property: string) => (/^\d+$/.test(property) ? `${prefix}[${property}]` : prefix ? `${prefix}.${property}` : property);

/** Like validateBody's details, with array indices as `[i]` and unknown fields as `unknownField`. */
function toDetails(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = fieldPath(prefix, e.property);
    if (e.constraints) {
      if (e.constraints.whitelistValidation) {
        out.push({ field, code: 'unknownField', message: `${field} is not a field of this request` });
      } else if (e.value === undefined) {
        out.push({ field, code: 'required', message: `${field} is required` });
      } else {
        const rules = Object.entries(e.constraints);
        const typeRules = rules.filter(([rule]) => TYPE_RULES.has(rule));
        for (const [rule, message] of typeRules.length ? typeRules : rules) {
          out.push({ field, code: rule, message: message.startsWith(e.property) ? `${field}${message.slice(e.property.length)}` : `${field}: ${message}` });
        }
      }
    }
    if (e.children?.length) out.push(...toDetails(e.children, field));
  }
  return out;
}

/** A 400 `REQUEST.VALIDATION` naming the first problem, with every problem in its details. */
export function refuseBody(details: ErrorDetail[]): never {
  return refuse(details);
}

function refuse(details: ErrorDetail[]): never {
  throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid body: ${details[0].message}`, details);
}

/** Nulls are absent (as everywhere); arrays are walked, so a null row field is reported `required`. */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = withoutNulls(v);
  return out;
}

/**
 * Strict validation of a reporting body (updates and queries): unknown fields (at any depth) are a
 * 400 like every other problem; nulls are absent.
 */
export function validateStrictBody<T extends object>(dto: new () => T, body: unknown): T {
  return strict(dto, body);
}

/** validateStrictBody; `skip` names fields taken as they are (checked by hand afterwards). */
function strict<T extends object>(dto: new () => T, body: unknown, skip: readonly string[] = []): T {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    refuse([{ field: '', code: 'isObject', message: 'body must be a JSON object' }]);
  }
  const source = body as Record<string, unknown>;
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) if (value !== null && !skip.includes(key)) plain[key] = withoutNulls(value);
  const instance = toDtoInstance(dto, plain, { keepUnknown: true });
  for (const key of skip) if (source[key] !== null && source[key] !== undefined) (instance as Record<string, unknown>)[key] = source[key];
  const errors = validateSync(instance, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
  if (errors.length) refuse(toDetails(errors));
  return instance;
}

const DAY_MS = 24 * 3600 * 1000;

/** End after start, and at most 366 days after it. */
function checkWindow(timeStart: string, timeEnd: string): void {
  const start = Date.parse(timeStart);
  const end = Date.parse(timeEnd);
  if (!(end > start)) refuse([{ field: 'timeEnd', code: 'isAfterStart', message: 'timeEnd must be after timeStart' }]);
  if (end - start > REPORTING_LIMITS.windowDays * DAY_MS) {
    refuse([{ field: 'timeEnd', code: 'maxWindow', message: `timeEnd must be at most ${REPORTING_LIMITS.windowDays} days after timeStart` }]);
  }
}

const OPTIONAL_ROW_FIELDS = new Set(['hitId', 'payout', 'transactionId', 'time']);

/**
 * The rows of a conversions update, checked by hand (the rules of ConvertedHitDto, without an
 * object per row: this is the hot path of the reporting routes). Every bad row is reported.
 */
function checkConvertedHits(rows: readonly unknown[], details: ErrorDetail[], out: ConvertedHitRow[], from = 0, to = rows.length): void {
  const report = (field: string, code: string, message: string) => {
    if (details.length < 20) details.push({ field, code, message });
  };
  for (let i = from; i < to; i++) {
    const row = rows[i] as Record<string, unknown> | null;
    const at = `hits[${i}]`;
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      report(at, 'isObject', `${at} must be an object`);
      continue;
    }
    for (const key in row) if (!OPTIONAL_ROW_FIELDS.has(key)) report(`${at}.${key}`, 'unknownField', `${at}.${key} is not a field of this request`);
    const { hitId, payout, transactionId, time } = row;
    if (hitId === undefined || hitId === null) report(`${at}.hitId`, 'required', `${at}.hitId is required`);
    else if (typeof hitId !== 'string') report(`${at}.hitId`, 'isString', `${at}.hitId must be a string`);
    else if (!isValidAssetId(hitId)) report(`${at}.hitId`, 'isAssetId', `${at}.hitId must be a valid id (${ID_RULE})`);
    let payoutText: string | undefined;
    if (payout === undefined || payout === null) report(`${at}.payout`, 'required', `${at}.payout is required`);
    else if (!isReportingDecimal(payout, true)) {
      report(`${at}.payout`, 'isDecimal', `${at}.payout must be a decimal >= 0 with up to 6 decimals, or -1 (remove the conversions)`);
    } else payoutText = decimalText(payout);
    if (transactionId !== undefined && transactionId !== null) {
      if (typeof transactionId !== 'string') report(`${at}.transactionId`, 'isString', `${at}.transactionId must be a string`);
      else if (transactionId.length > REPORTING_LIMITS.transactionIdMax) {
        report(`${at}.transactionId`, 'maxLength', `${at}.transactionId must be shorter than or equal to ${REPORTING_LIMITS.transactionIdMax} characters`);
      }
    }
    if (time !== undefined && time !== null) {
      if (typeof time !== 'string') report(`${at}.time`, 'isString', `${at}.time must be a string`);
      else if (!isDateTime(time)) report(`${at}.time`, 'isIso8601', `${at}.time ${DATE_TIME_MESSAGE}`);
    }
    const converted: ConvertedHitRow = { hitId: hitId as string, payout: payoutText as string, transactionId: (transactionId as string | undefined) ?? '' };
    if (typeof time === 'string') converted.time = time;
    out[i] = converted;
  }
}

/** PUT /reporting/update/conversions/: 1..10,000 rows (more: 413 before anything else is read). */
export function parseConversionsUpdate(body: unknown): ConversionsUpdate {
  const { dto, rows } = conversionsHead(body);
  const details: ErrorDetail[] = [];
  const hits: ConvertedHitRow[] = new Array(rows.length);
  checkConvertedHits(rows, details, hits);
  return conversionsUpdateOf(dto, hits, details);
}

/** Rows of a conversions update checked in one slice by `parseConversionsUpdateInSlices`. */
export const CONVERSION_ROWS_PER_SLICE = 2000;

/**
 * parseConversionsUpdate, checking the rows `CONVERSION_ROWS_PER_SLICE` at a time and awaiting
 * `between()` between two slices (e.g. the next turn of the event loop), so that a 10,000-row body
 * does not hold a server's event loop for its whole check.
 */
export async function parseConversionsUpdateInSlices(body: unknown, between: () => Promise<void>): Promise<ConversionsUpdate> {
  const { dto, rows } = conversionsHead(body);
  const details: ErrorDetail[] = [];
  const hits: ConvertedHitRow[] = new Array(rows.length);
  for (let from = 0; from < rows.length; from += CONVERSION_ROWS_PER_SLICE) {
    if (from > 0) await between();
    checkConvertedHits(rows, details, hits, from, Math.min(rows.length, from + CONVERSION_ROWS_PER_SLICE));
  }
  return conversionsUpdateOf(dto, hits, details);
}

/** The conversions update's fields but its rows, checked; its rows, not yet. */
function conversionsHead(body: unknown): { dto: ConversionsUpdateDto; rows: unknown[] } {
  const rows = (body as { hits?: unknown } | null)?.hits;
  if (Array.isArray(rows) && rows.length > REPORTING_LIMITS.conversionRows) {
    const message = `hits must have at most ${REPORTING_LIMITS.conversionRows} rows, got ${rows.length}`;
    throw new ServiceError(413, ReportingErrorCodes.TOO_MANY_ROWS, message, [{ field: 'hits', code: 'arrayMaxSize', message }]);
  }
  const dto = strict(ConversionsUpdateDto, body, ['hits']);
  if (!Array.isArray(dto.hits))
    refuse([
      { field: 'hits', code: dto.hits === undefined ? 'required' : 'isArray', message: dto.hits === undefined ? 'hits is required' : 'hits must be an array' },
    ]);
  if (dto.hits.length === 0) refuse([{ field: 'hits', code: 'arrayMinSize', message: 'hits must contain at least 1 elements' }]);
  return { dto, rows: dto.hits };
}

function conversionsUpdateOf(dto: ConversionsUpdateDto, hits: ConvertedHitRow[], details: ErrorDetail[]): ConversionsUpdate {
  if (details.length) refuse(details);
  return {
    hits,
    postbackCalls: dto.postbackCalls ?? 'none',
    overridePayout: dto.overridePayout === undefined ? null : decimalText(dto.overridePayout)!,
    disablePostbacks: dto.disablePostbacks ?? false,
    forcePostbacks: dto.forcePostbacks ?? false,
  };
}

/** PUT /reporting/update/customevents/: 1..10 rows; any bad row rejects the batch, every bad row named. */
export function parseCustomEventsUpdate(body: unknown): CustomEventsUpdate {
  const dto = strict(CustomEventsUpdateDto, body);
  return {
    hits: dto.hits.map((row) => ({
      hitId: row.hitId,
      eventNumber: row.eventNumber,
      count: row.count ?? 1,
      ...(row.time !== undefined ? { time: row.time } : {}),
    })),
    postbackCalls: dto.postbackCalls ?? 'none',
    disablePostbacks: dto.disablePostbacks ?? false,
  };
}

/** PUT /reporting/update/cost/: 1..1000 segments over a window of at most 366 days. */
export function parseCostUpdate(body: unknown): CostUpdate {
  const dto = strict(CostUpdateDto, body);
  checkWindow(dto.timeStart, dto.timeEnd);
  return {
    funnelIDs: dto.funnelIDs,
    trafficSourceIDs: dto.trafficSourceIDs,
    timeStart: dto.timeStart,
    timeEnd: dto.timeEnd,
    segments: dto.segments.map((segment) => ({
      cost: decimalText(segment.cost)!,
      costType: segment.costType,
      restrictToCountryCode: segment.restrictToCountryCode ?? '',
      restrictToTrackingFields: (segment.restrictToTrackingFields ?? []).map(({ key, value }) => ({ key, value })),
    })),
  };
}

/** POST and DELETE /reporting/update/reset/ (ResetUpdateParams with `restrictToTrackingFields`). */
export function parseResetUpdate(body: unknown): ResetUpdate {
  const dto = strict(ResetUpdateDto, body);
  checkWindow(dto.timeStart, dto.timeEnd);
  return {
    timeStart: dto.timeStart,
    timeEnd: dto.timeEnd,
    restrictToCampaignIDs: dto.restrictToCampaignIDs ?? [],
    restrictToFunnelIDs: dto.restrictToFunnelIDs ?? [],
    restrictToTrafficSourceIDs: dto.restrictToTrafficSourceIDs ?? [],
    restrictToCountryCodes: dto.restrictToCountryCodes ?? [],
    restrictToVisitorIDs: dto.restrictToVisitorIDs ?? [],
    restrictToIPs: dto.restrictToIPs ?? [],
    restrictToTrackingFields: { ...(dto.restrictToTrackingFields ?? {}) },
  };
}
