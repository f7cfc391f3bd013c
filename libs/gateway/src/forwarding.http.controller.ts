import { All, Controller, Inject, Req } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { ErrorCodes, ServiceError } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';
import { API_KEY_AUTHENTICATOR, ROUTE_TABLE, SERVICE_CLIENT } from './gateway.tokens';
import { RouteTable } from './route-table';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { authenticate, requirePermission } from './credentials';

/**
 * Every forwarded /v1 route (the asset families, logic scripts ...) in one handler driven by the
 * route table: authenticate, check the permission, forward `{ context, body: { query, body } }` to
 * the route's subject, and answer with the service's result.
 */
@Controller()
export class ForwardingHttpController {
  constructor(
    @Inject(ROUTE_TABLE) private readonly routes: RouteTable,
    @Inject(SERVICE_CLIENT) private readonly client: ServiceClient,
    @Inject(API_KEY_AUTHENTICATOR) private readonly apiKeys: ApiKeyAuthenticator,
  ) {}

  @All('v1/*')
  async forward(@Req() request: FastifyRequest): Promise<unknown> {
    const path = request.url.slice(3).split('?', 1)[0];
    const route = this.routes.match(request.method, path);
    if (!route) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `no route ${request.method} /v1${path}`);
    const principal = await authenticate(request, this.apiKeys);
    if (route === 'method-not-allowed') throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${request.method} is not served on /v1${path}`);
    requirePermission(principal, route.permission);
    const { key: _key, ...query } = (request.query ?? {}) as Record<string, string | string[]>;
    const reply = await this.client.request<{ result?: unknown }>(route.subject, {
      context: { ...principal, correlationId: String(request.id) },
      body: { query, body: request.body },
    });
    return route.reply === 'result' ? reply?.result : reply;
  }
}
