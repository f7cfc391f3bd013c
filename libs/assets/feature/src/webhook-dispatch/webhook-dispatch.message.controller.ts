import { Controller, Inject, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ASSETS_WEBHOOK_DELIVER_SUBJECT, ASSETS_WEBHOOK_TARGETS_SUBJECT, RpcRequest, WebhookDeliverAnswer, WebhookTargetsAnswer } from '@funnel/contracts';
import { WebhookDispatch } from './webhook-dispatch';

export const WEBHOOK_DISPATCH = Symbol.for('funnel.assets.WebhookDispatch');

/**
 * Reporting's webhook deliveries (`assets.internal.webhooktargets`, `assets.internal.webhookdeliver`):
 * cross-account by the account id in the body, so the gateway is denied both subjects
 * (ASSETS_INTERNAL_SUBJECTS) and only reporting-service's NATS user may send them; in standalone
 * mode only in-process callers reach them.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class WebhookDispatchMessageController {
  constructor(@Inject(WEBHOOK_DISPATCH) private readonly dispatch: WebhookDispatch) {}

  @MessagePattern(ASSETS_WEBHOOK_TARGETS_SUBJECT)
  targets(@Payload() request: RpcRequest<unknown>): Promise<WebhookTargetsAnswer> {
    return this.dispatch.targets(request?.body);
  }

  @MessagePattern(ASSETS_WEBHOOK_DELIVER_SUBJECT)
  deliver(@Payload() request: RpcRequest<unknown>): Promise<WebhookDeliverAnswer> {
    return this.dispatch.deliver(request?.body);
  }
}
