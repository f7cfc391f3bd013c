import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { FastifyReply, FastifyRequest } from 'fastify';
import { ID_PATTERN, ServiceError, generateAssetId } from '@funnel/contracts';
import { Credentials } from './credentials';
import { CredentialRateLimit } from './limits/credential-rate-limit';
import { noteCaller } from './observability/request-observability';
import type { OwnRoute } from './docs/openapi/route-doc';

/** The API document's entry of the route below. */
export const IDS_ROUTES: OwnRoute[] = [
  {
    method: 'GET',
    path: '/ids/generate',
    permission: 'authenticated',
    doc: {
      tag: 'ids',
      summary: 'Asset ids in the one accepted format',
      query: [{ name: 'count', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 1 } }],
      answer: {
        type: 'object',
        required: ['ids'],
        properties: { ids: { type: 'array', items: { type: 'string', pattern: ID_PATTERN.source } } },
        additionalProperties: false,
      },
    },
  },
];

/** GET /v1/ids/generate?count=N: ids in the one accepted format, for clients that cannot make their own. */
@Controller('v1/ids')
export class IdsHttpController {
  constructor(
    private readonly credentials: Credentials,
    private readonly rateLimit: CredentialRateLimit,
  ) {}

  @Get('generate')
  async generate(@Req() request: FastifyRequest, @Res({ passthrough: true }) reply: FastifyReply, @Query('count') count?: string): Promise<{ ids: string[] }> {
    const principal = await this.credentials.authenticate(request);
    noteCaller(request, principal);
    this.rateLimit.enforce(principal, reply);
    const n = count === undefined ? 1 : Number(count);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw ServiceError.invalidField('count', 'range', 'count must be an integer from 1 to 1000');
    const now = Date.now();
    return { ids: Array.from({ length: n }, () => generateAssetId(now)) };
  }
}
