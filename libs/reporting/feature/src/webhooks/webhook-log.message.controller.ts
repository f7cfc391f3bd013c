import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { RpcRequest, ServiceError, WEBHOOK_LOG_LIMITS, WEBHOOK_LOG_SUBJECT, parseWebhookLogRequest, type WebhookLogReport } from '@funnel/contracts';
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
    const accountId = request?.context?.accountId;
    if (typeof accountId !== 'string' || accountId === '') throw ServiceError.unauthorized();
    const { timeStart, timeEnd, paging, ...filters } = parseWebhookLogRequest(request?.body?.body);
    const { summary, rows, rowsTotal } = await this.log.find({
      accountId,
      startMs: Date.parse(timeStart),
      endMs: Date.parse(timeEnd),
      ...filters,
      start: paging?.start ?? 0,
      length: paging?.length ?? WEBHOOK_LOG_LIMITS.defaultRows,
    });
    return { summary, rows, rowsReturned: rows.length, rowsTotal };
  }
}
