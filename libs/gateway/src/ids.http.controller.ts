import { Controller, Get, Query, Req } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { ErrorCodes, ServiceError, generateAssetId } from '@funnel/contracts';
import { Credentials } from './credentials';
import { noteCaller } from './observability/request-observability';

/** GET /v1/ids/generate?count=N: ids in the one accepted format, for clients that cannot make their own. */
@Controller('v1/ids')
export class IdsHttpController {
  constructor(private readonly credentials: Credentials) {}

  @Get('generate')
  async generate(@Req() request: FastifyRequest, @Query('count') count?: string): Promise<{ ids: string[] }> {
    noteCaller(request, await this.credentials.authenticate(request));
    const n = count === undefined ? 1 : Number(count);
    if (!Number.isInteger(n) || n < 1 || n > 1000) throw ServiceError.badRequest(ErrorCodes.VALIDATION, 'count must be an integer from 1 to 1000');
    const now = Date.now();
    return { ids: Array.from({ length: n }, () => generateAssetId(now)) };
  }
}
