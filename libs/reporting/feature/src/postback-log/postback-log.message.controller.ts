import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ReportingQueryErrorCodes, ReportingQuerySubjects, RpcRequest, ServiceError, parsePostbackLogRequest, type PostbackLogReport } from '@funnel/contracts';
import { POSTBACK_LOG_STORE, PostbackLogQueryTimeout, type PostbackLogStore } from './postback-log-store';

/** Rows per page when `paging.length` is absent (at most REPORTING_QUERY_LIMITS.maxPostbackRows). */
export const DEFAULT_POSTBACK_LOG_ROWS = 100;

/**
 * POST /reporting/logs/postbacks (queue group `reporting`): the caller's account's outgoing
 * postbacks decided in a window, filtered by traffic source, funnel and status, newest first, one
 * page of them with the exact count of the window. A query past its time limit is stopped and
 * answered 503 `REPORTING.QUERY_TIMEOUT`.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class PostbackLogMessageController {
  constructor(@Inject(POSTBACK_LOG_STORE) private readonly log: PostbackLogStore) {}

  @MessagePattern(ReportingQuerySubjects.postbackLog)
  async postbackLog(@Payload() request: RpcRequest<{ body?: unknown }>): Promise<PostbackLogReport> {
    const accountId = request?.context?.accountId;
    if (typeof accountId !== 'string' || accountId === '') throw ServiceError.unauthorized();
    const { timeStart, timeEnd, trafficSourceIds, funnelIds, statuses, paging } = parsePostbackLogRequest(request?.body?.body);
    try {
      const { rows, rowsTotal } = await this.log.find({
        accountId,
        startMs: Date.parse(timeStart),
        endMs: Date.parse(timeEnd),
        trafficSourceIds,
        funnelIds,
        statuses,
        start: paging?.start ?? 0,
        length: paging?.length ?? DEFAULT_POSTBACK_LOG_ROWS,
      });
      return { rows, rowsReturned: rows.length, rowsTotal };
    } catch (error) {
      if (error instanceof PostbackLogQueryTimeout) throw new ServiceError(503, ReportingQueryErrorCodes.QUERY_TIMEOUT, error.message);
      throw error;
    }
  }
}
