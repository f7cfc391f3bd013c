import { ErrorCodes, ErrorDetail, ServiceError } from '../../errors';
import { isValidAssetId, ID_RULE } from '../../ids';
import {
  DrilldownRequest,
  ExplorerHitRequest,
  ExplorerVisitorRequest,
  MiddlewareLogRequest,
  PostbackLogRequest,
  RawEventsRequest,
  REPORTING_QUERY_LIMITS,
} from '../queries';
import { refuseBody, validateStrictBody } from '../validate';
import {
  DrilldownRequestDto,
  ExplorerHitRequestDto,
  ExplorerVisitorRequestDto,
  IncomingPostbackLogRequestDto,
  MiddlewareLogRequestDto,
  PostbackLogRequestDto,
  RawEventsRequestDto,
} from './requests';
import type { IncomingPostbackLogRequest } from '../incoming-postbacks';

/* The reporting service's first check of a query (the DTO's rules and the window); what names
 * attributes and metrics is resolved against the catalogue afterwards. Each throws the standard 400
 * `REQUEST.VALIDATION` whose details name the fields. */

const DAY_MS = 86_400_000;

/** timeEnd after timeStart, at most REPORTING_QUERY_LIMITS.maxWindowDays days later (both already RFC 3339). */
export function checkQueryWindow(timeStart: string, timeEnd: string): void {
  const start = Date.parse(timeStart);
  const end = Date.parse(timeEnd);
  if (!(end > start)) refuseBody([{ field: 'timeEnd', code: 'isAfterStart', message: 'timeEnd must be after timeStart' }]);
  if (end - start > REPORTING_QUERY_LIMITS.maxWindowDays * DAY_MS) {
    refuseBody([{ field: 'timeEnd', code: 'maxWindow', message: `timeEnd must be at most ${REPORTING_QUERY_LIMITS.maxWindowDays} days after timeStart` }]);
  }
}

/** POST /reporting/drilldown/ */
export function parseDrilldownRequest(body: unknown): DrilldownRequest {
  const request = validateStrictBody(DrilldownRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** POST /reporting/rawevents/ */
export function parseRawEventsRequest(body: unknown): RawEventsRequest {
  const request = validateStrictBody(RawEventsRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** POST /reporting/explorer/visitor/: `{ visitorId, timeStart, timeEnd }` or `{ hitId }`, not both. */
export function parseExplorerVisitorRequest(body: unknown): ExplorerVisitorRequest {
  const given = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  const byHit = given?.hitId !== undefined && given.hitId !== null;
  if (byHit && ['visitorId', 'timeStart', 'timeEnd'].some((field) => given[field] !== undefined && given[field] !== null)) {
    const message = 'give either hitId, or visitorId with timeStart and timeEnd';
    refuseBody([{ field: 'hitId', code: 'oneOf', message }]);
  }
  if (byHit) return validateStrictBody(ExplorerHitRequestDto, body);
  const request = validateStrictBody(ExplorerVisitorRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** POST /reporting/explorer/hit/ */
export function parseExplorerHitRequest(body: unknown): ExplorerHitRequest {
  return validateStrictBody(ExplorerHitRequestDto, body);
}

/** POST /reporting/logs/postbacks/ */
export function parsePostbackLogRequest(body: unknown): PostbackLogRequest {
  const request = validateStrictBody(PostbackLogRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** POST /reporting/logs/incomingpostbacks/ */
export function parseIncomingPostbackLogRequest(body: unknown): IncomingPostbackLogRequest {
  const request = validateStrictBody(IncomingPostbackLogRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** POST /reporting/logs/middleware/ */
export function parseMiddlewareLogRequest(body: unknown): MiddlewareLogRequest {
  const request = validateStrictBody(MiddlewareLogRequestDto, body);
  checkQueryWindow(request.timeStart, request.timeEnd);
  return request;
}

/** The query parameters of GET /reporting/attributes/. */
export interface AttributesQuery {
  /** Tracking-field attributes named as this traffic source names its slots. */
  idTrafficSource?: string;
}

const ATTRIBUTES_QUERY_FIELDS = new Set(['idTrafficSource']);

/** GET /reporting/attributes/?idTrafficSource=: one optional asset id; another parameter is a 400. */
export function parseAttributesQuery(query: Readonly<Record<string, string | string[] | undefined>> | undefined): AttributesQuery {
  const details: ErrorDetail[] = [];
  for (const name of Object.keys(query ?? {})) {
    if (!ATTRIBUTES_QUERY_FIELDS.has(name)) details.push({ field: name, code: 'unknownField', message: `${name} is not a parameter of this request` });
  }
  const id = query?.idTrafficSource;
  if (Array.isArray(id)) details.push({ field: 'idTrafficSource', code: 'isString', message: 'idTrafficSource must be given once' });
  else if (id !== undefined && id !== '' && !isValidAssetId(id)) {
    details.push({ field: 'idTrafficSource', code: 'isAssetId', message: `idTrafficSource must be a valid id (${ID_RULE})` });
  }
  if (details.length) throw ServiceError.badRequest(ErrorCodes.VALIDATION, `invalid query: ${details[0].message}`, details);
  return typeof id === 'string' && id !== '' ? { idTrafficSource: id } : {};
}
