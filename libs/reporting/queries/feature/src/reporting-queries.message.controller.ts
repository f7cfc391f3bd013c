import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import {
  ReportingQuerySubjects,
  ServiceError,
  parseAttributesQuery,
  parseDrilldownRequest,
  parseExplorerHitRequest,
  parseExplorerVisitorRequest,
  parseMiddlewareLogRequest,
  parseRawEventsRequest,
  type CallerContext,
  type RpcRequest,
} from '@funnel/contracts';
import { ReportQueries } from './service/report-queries';

interface ForwardedBody {
  query?: Record<string, unknown>;
  body?: unknown;
}

type QueryRequest = RpcRequest<ForwardedBody>;

function callerOf(request: QueryRequest): CallerContext {
  const context = request?.context;
  if (!context || typeof context.accountId !== 'string' || context.accountId === '') throw ServiceError.unauthorized();
  return context;
}

function bodyOf<T>(request: QueryRequest): T {
  const body = request?.body?.body;
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw ServiceError.invalidField('', 'isObject', 'the request body must be a JSON object');
  return body as T;
}

/** The reporting queries (queue group `reporting`, permission `reporting:read`): every one scoped to the caller's account. */
@Controller()
@UseFilters(new RpcErrorFilter())
export class ReportingQueriesMessageController {
  constructor(@Inject(ReportQueries) private readonly queries: ReportQueries) {}

  /** GET /reporting/attributes[?idTrafficSource=] */
  @MessagePattern(ReportingQuerySubjects.attributes)
  attributes(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    const { idTrafficSource } = parseAttributesQuery(request?.body?.query as Record<string, string | string[] | undefined> | undefined);
    return this.queries.attributes(context, idTrafficSource);
  }

  /** POST /reporting/drilldown */
  @MessagePattern(ReportingQuerySubjects.drilldown)
  drilldown(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    return this.queries.drilldown(context, parseDrilldownRequest(bodyOf(request)));
  }

  /** POST /reporting/rawevents */
  @MessagePattern(ReportingQuerySubjects.rawEvents)
  rawEvents(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    return this.queries.rawEvents(context, parseRawEventsRequest(bodyOf(request)));
  }

  /** POST /reporting/explorer/visitor */
  @MessagePattern(ReportingQuerySubjects.explorerVisitor)
  explorerVisitor(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    return this.queries.explorerVisitor(context, parseExplorerVisitorRequest(bodyOf(request)) as unknown as Record<string, unknown>);
  }

  /** POST /reporting/logs/middleware */
  @MessagePattern(ReportingQuerySubjects.middlewareLog)
  middlewareLog(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    return this.queries.middlewareLog(context, parseMiddlewareLogRequest(bodyOf(request)));
  }

  /** POST /reporting/explorer/hit */
  @MessagePattern(ReportingQuerySubjects.explorerHit)
  explorerHit(@Payload() request: QueryRequest) {
    const context = callerOf(request);
    return this.queries.explorerHit(context, parseExplorerHitRequest(bodyOf(request)).hitId);
  }
}
