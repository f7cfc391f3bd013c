import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ReportingQuerySubjects, RpcRequest, parsePostbackLogRequest, type PostbackLogReport } from '@funnel/contracts';
import { accountOf, answerInTime, windowOf } from '../warehouse-log/log-route';
import { POSTBACK_LOG_STORE, type PostbackLogStore } from './postback-log-store';

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
    const accountId = accountOf(request);
    const parsed = parsePostbackLogRequest(request?.body?.body);
    const { trafficSourceIds, funnelIds, statuses } = parsed;
    const { rows, rowsTotal } = await answerInTime(
      this.log.find({ ...windowOf(accountId, parsed, DEFAULT_POSTBACK_LOG_ROWS), trafficSourceIds, funnelIds, statuses }),
    );
    return { rows, rowsReturned: rows.length, rowsTotal };
  }
}
