import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import {
  INTEGRATION_DELIVERY_LOG_LIMITS,
  INTEGRATION_DELIVERY_LOG_SUBJECT,
  type IntegrationDeliveryLogReport,
  type RpcRequest,
  parseIntegrationDeliveryLogRequest,
} from '@funnel/contracts';
import { accountOf, answerInTime, windowOf } from '../warehouse-log/log-route';
import { INTEGRATION_DELIVERY_LOG_STORE, type IntegrationDeliveryLogStore } from './delivery-log-store';

/**
 * POST /reporting/logs/integrationdeliveries (queue group `reporting`, `reporting:read`): what the
 * caller's account's integrations pulled in and sent out in a window (filtered by integration,
 * kind, status and job), newest first, paged.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class IntegrationDeliveryLogMessageController {
  constructor(@Inject(INTEGRATION_DELIVERY_LOG_STORE) private readonly log: IntegrationDeliveryLogStore) {}

  @MessagePattern(INTEGRATION_DELIVERY_LOG_SUBJECT)
  async deliveries(@Payload() request: RpcRequest<{ body?: unknown }>): Promise<IntegrationDeliveryLogReport> {
    const accountId = accountOf(request);
    const { timeStart, timeEnd, paging, ...filters } = parseIntegrationDeliveryLogRequest(request?.body?.body);
    const { rows, rowsTotal } = await answerInTime(
      this.log.find({ ...windowOf(accountId, { timeStart, timeEnd, paging }, INTEGRATION_DELIVERY_LOG_LIMITS.defaultRows), ...filters }),
    );
    return { rows, rowsReturned: rows.length, rowsTotal };
  }
}
