import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import {
  type IncomingPostback,
  type IncomingPostbackAccepted,
  type IncomingPostbackLogReport,
  ReportingQueryErrorCodes,
  ReportingQuerySubjects,
  ReportingSubjects,
  type RpcRequest,
  ServiceError,
  parseIncomingPostbackLogRequest,
} from '@funnel/contracts';
import { PostbackLogQueryTimeout } from '../postback-log/postback-log-store';
import { DEFAULT_POSTBACK_LOG_ROWS } from '../postback-log/postback-log.message.controller';
import { INCOMING_LOG_STORE, type IncomingLogStore } from './incoming-log-store';
import { IncomingPostbacks } from './incoming-postbacks.service';

/**
 * `reporting.internal.postback` (the tracking edge only: no gateway route; the NATS user
 * tracking-edge, or standalone's in-process bus) and POST /reporting/logs/incomingpostbacks
 * (`reporting:read`): the caller's account's postbacks received in a window, newest first, paged.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class IncomingPostbacksMessageController {
  constructor(
    private readonly postbacks: IncomingPostbacks,
    @Inject(INCOMING_LOG_STORE) private readonly log: IncomingLogStore,
  ) {}

  @MessagePattern(ReportingSubjects.postbackIn)
  receive(@Payload() request: { body?: IncomingPostback }): Promise<IncomingPostbackAccepted> {
    return this.postbacks.receive(request?.body as IncomingPostback);
  }

  @MessagePattern(ReportingQuerySubjects.incomingPostbackLog)
  async incomingPostbackLog(@Payload() request: RpcRequest<{ body?: unknown }>): Promise<IncomingPostbackLogReport> {
    const accountId = request?.context?.accountId;
    if (typeof accountId !== 'string' || accountId === '') throw ServiceError.unauthorized();
    const { timeStart, timeEnd, outcomes, sources, trafficSourceIds, funnelIds, hitIds, paging } = parseIncomingPostbackLogRequest(request?.body?.body);
    try {
      const { rows, rowsTotal } = await this.log.find({
        accountId,
        startMs: Date.parse(timeStart),
        endMs: Date.parse(timeEnd),
        outcomes,
        sources,
        trafficSourceIds,
        funnelIds,
        hitIds,
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
