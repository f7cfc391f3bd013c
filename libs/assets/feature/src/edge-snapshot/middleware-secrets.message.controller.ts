import { Controller, UseFilters } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcErrorFilter } from '@funnel/platform';
import { ASSETS_MIDDLEWARE_SECRETS_SUBJECT, MiddlewareSecretsAnswer, RpcRequest } from '@funnel/contracts';
import { MiddlewareSecretsQuery } from './middleware-secrets.query';

/**
 * `assets.internal.middlewaresecrets`: for the tracking edge only. The gateway is denied the subject
 * (FUNNEL_NATS_LAYOUT's internalSubjects) and has no route to it; in standalone mode only in-process
 * callers reach it.
 */
@Controller()
@UseFilters(new RpcErrorFilter())
export class MiddlewareSecretsMessageController {
  constructor(private readonly query: MiddlewareSecretsQuery) {}

  @MessagePattern(ASSETS_MIDDLEWARE_SECRETS_SUBJECT)
  secrets(@Payload() request: RpcRequest<unknown>): Promise<MiddlewareSecretsAnswer> {
    return this.query.secretsOf(request?.body);
  }
}
