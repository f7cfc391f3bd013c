import { Controller, Get, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { Credentials } from '../credentials';
import { CredentialRateLimit } from '../limits/credential-rate-limit';
import { noteCaller } from '../observability/request-observability';
import { AsyncApiDocument, asyncApiDocument } from './asyncapi';

/**
 * GET /v1/asyncapi.json: the asset event stream's AsyncAPI 3 document, for any valid credential
 * (it describes the internal NATS subjects, which no anonymous caller needs). Built once.
 */
@Controller('v1')
export class AsyncApiHttpController {
  private document: AsyncApiDocument | undefined;

  constructor(
    private readonly credentials: Credentials,
    private readonly rateLimit: CredentialRateLimit,
  ) {}

  @Get('asyncapi.json')
  async asyncApi(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply): Promise<AsyncApiDocument> {
    const principal = await this.credentials.authenticate(request);
    noteCaller(request, principal);
    this.rateLimit.enforce(principal, reply);
    return (this.document ??= asyncApiDocument());
  }
}
