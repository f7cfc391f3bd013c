import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import {
  type IncomingPostback,
  type IncomingPostbackAccepted,
  type IncomingPostbackLogReport,
  ReportingQuerySubjects,
  ReportingSubjects,
  type RpcRequest,
  parseIncomingPostbackLogRequest,
} from '@funnel/contracts';
import { DEFAULT_POSTBACK_LOG_ROWS } from '../postback-log/postback-log.message.controller';
import { accountOf, answerInTime, windowOf } from '../warehouse-log/log-route';
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
    const accountId = accountOf(request);
    const parsed = parseIncomingPostbackLogRequest(request?.body?.body);
    const { outcomes, sources, trafficSourceIds, funnelIds, hitIds } = parsed;
    const { rows, rowsTotal } = await answerInTime(
      this.log.find({ ...windowOf(accountId, parsed, DEFAULT_POSTBACK_LOG_ROWS), outcomes, sources, trafficSourceIds, funnelIds, hitIds }),
    );
    return { rows, rowsReturned: rows.length, rowsTotal };
  }
}
