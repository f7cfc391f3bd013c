import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { RpcRequest, WEBHOOK_LOG_LIMITS, WEBHOOK_LOG_SUBJECT, parseWebhookLogRequest, type WebhookLogReport } from '@funnel/contracts';
import { accountOf, windowOf } from '../warehouse-log/log-route';
import { WEBHOOK_LOG_STORE, type WebhookLogStore } from './webhook-log-store';

/**
 * POST /reporting/logs/webhooks (queue group `reporting`): the webhook asset summary of the caller's
 * account: per webhook config and node, the attempts of a window (filtered by config, funnel, node,
 * trigger and outcome), with one page of the attempts, newest first.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class WebhookLogMessageController {
  constructor(@Inject(WEBHOOK_LOG_STORE) private readonly log: WebhookLogStore) {}

  @MessagePattern(WEBHOOK_LOG_SUBJECT)
  async webhookLog(@Payload() request: RpcRequest<{ body?: unknown }>): Promise<WebhookLogReport> {
    const accountId = accountOf(request);
    const { timeStart, timeEnd, paging, ...filters } = parseWebhookLogRequest(request?.body?.body);
    const { summary, rows, rowsTotal } = await this.log.find({
      ...windowOf(accountId, { timeStart, timeEnd, paging }, WEBHOOK_LOG_LIMITS.defaultRows),
      ...filters,
    });
    return { summary, rows, rowsReturned: rows.length, rowsTotal };
  }
}
