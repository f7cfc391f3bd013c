import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AssetReply, CallerContext, ErrorCodes, IdentityRequestBody, Principal, SerializedJson, ServiceError } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';
import { ROUTE_TABLE, SERVICE_CLIENT } from './gateway.tokens';
import { LARGEST_BODY_BYTES, MAX_BODY_BYTES, bodyTooLarge, useBodyLimit } from './limits/json-body';
import { RouteTable, pathUnderV1 } from './route-table';
import { useErrorBodyShape } from './http-errors';
import { Credentials, bearerTokenOf, requirePermission } from './credentials';
import { CredentialRateLimit } from './limits/credential-rate-limit';
import { noteCaller } from './observability/request-observability';
import { keepsAnswer, renameAnswer, renameError, renameRequestBody } from './field-renames';

const ANONYMOUS: Principal = { accountId: '', userId: '', permissions: [] };

/**
 * Every forwarded /v1 route (the asset families, logic scripts ...) in one Fastify handler driven by
 * the route table: authenticate, count the request against its credential's rate limit, check the
 * permission, forward `{ context, body: { query, body } }` to the route's subject, and answer with
 * the service's result. It is registered on Fastify directly rather than as a Nest controller: it
 * is the hot path of every request, needs none of Nest's per-route machinery, and its failures
 * reach the same error handler.
 */
@Injectable()
export class ForwardingRoute implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(ROUTE_TABLE) private readonly routes: RouteTable,
    @Inject(SERVICE_CLIENT) private readonly client: ServiceClient,
    private readonly credentials: Credentials,
    private readonly rateLimit: CredentialRateLimit,
  ) {}

  onModuleInit(): void {
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.route({
      method: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'],
      url: '/v1/*',
      // Before the body is parsed, so a route's own error shape holds for every failure of its requests.
      // Fastify reads up to the largest route's bound; each route's own bound is checked here (by the
      // declared length) and by the JSON parser (by what arrived).
      bodyLimit: LARGEST_BODY_BYTES,
      onRequest: (request, _reply, done) => {
        const path = pathOf(request);
        const matched = this.routes.resolve(request.method === 'HEAD' ? 'GET' : request.method, path);
        const shape = matched === 'method-not-allowed' ? this.routes.errorBodyOf(path) : matched?.route.errorBody;
        if (shape) useErrorBodyShape(request, shape);
        const limit = (matched !== 'method-not-allowed' && matched?.route.maxBodyBytes) || MAX_BODY_BYTES;
        useBodyLimit(request, limit);
        const declared = Number(request.headers['content-length']);
        done(declared > limit ? bodyTooLarge(limit) : undefined);
      },
      handler: (request, reply) => this.forward(request, reply),
    });
  }

  async forward(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const path = pathOf(request);
    // Fastify serves HEAD on GET routes with the GET handler, and drops the body it sends.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    const matched = this.routes.resolve(method, path);
    const route = matched === 'method-not-allowed' ? matched : matched?.route;
    if (!route) throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `no route ${request.method} /v1${path}`);
    const correlationId = String(request.id);
    const isPublic = route !== 'method-not-allowed' && route.permission === 'public';
    const principal = isPublic ? ANONYMOUS : await this.credentials.authenticate(request);
    if (!isPublic) this.rateLimit.enforce(principal, reply);
    noteCaller(request, principal);
    if (route === 'method-not-allowed') throw ServiceError.notFound(ErrorCodes.ROUTE_NOT_FOUND, `${request.method} is not served on /v1${path}`);
    if (route.permission !== 'public' && route.permission !== 'authenticated') requirePermission(principal, route.permission);
    const query: Record<string, string | string[]> = {};
    const names = route.renames?.request;
    const given = (request.query ?? {}) as Record<string, string | string[]>;
    for (const name in given) if (name !== 'key') query[names?.[name] ?? name] = given[name];
    const body: IdentityRequestBody = { query, body: renameRequestBody(request.body, route.renames) };
    if (route.forwardBearerToken) body.bearerToken = bearerTokenOf(request);
    if (route.forwardSourceAddress) body.sourceAddress = request.ip;
    if (matched !== 'method-not-allowed' && matched && hasAny(matched.params)) body.params = matched.params;
    if (route.forwardHeaders) body.headers = forwardedHeaders(request, route.forwardHeaders);
    // Fields copied one by one: a spread that gains a field gives V8 a new object shape per request,
    // which slowed every later read of the context (about a fifth of a standalone request's CPU).
    const context: CallerContext = {
      accountId: principal.accountId,
      userId: principal.userId,
      permissions: principal.permissions,
      correlationId,
      keyId: principal.keyId,
    };
    let answer: AssetReply | undefined;
    try {
      answer = await this.client.request<AssetReply>(route.subject, { context, body }, route.timeoutMs ? { timeoutMs: route.timeoutMs } : undefined);
    } catch (error) {
      // A view's refusals name fields as the view does (`campaignName` under `/campaign/`).
      throw error instanceof ServiceError ? renameError(error, route.renames?.errors) : error;
    }
    if (route.reply === 'result' && answer) answerHeaders(answer, reply);
    // A route that documents another success status (202 for a queued job) answers it.
    if (route.doc?.status !== undefined) reply.status(route.doc.status);
    const result = route.reply === 'result' ? answer?.result : answer;
    // An answer serialized by the service is written as it is (unless a view renames its fields).
    if (result instanceof SerializedJson && !route.noAnswer && keepsAnswer(route.renames)) {
      return reply.header('content-type', 'application/json; charset=utf-8').send(result.bytes);
    }
    const payload = route.noAnswer ? undefined : renameAnswer(result instanceof SerializedJson ? result.value() : result, route.renames);
    // No result means "no body" (save, delete, archive ... answer 200 with an empty body).
    return payload === undefined ? reply.send() : reply.send(payload);
  }
}

/** What a reply carries besides its result: the asset's revision as a weak ETag, a paged list's next cursor. */
function answerHeaders(answer: AssetReply, reply: FastifyReply): void {
  if (typeof answer.revision === 'number') reply.header('etag', `W/"${answer.revision}"`);
  if (typeof answer.nextCursor === 'string') reply.header('x-next-cursor', answer.nextCursor);
}

/** The path under /v1, without the query. */
function pathOf(request: FastifyRequest): string {
  return pathUnderV1(request.url);
}

/** The named headers the request has (a repeated header: its first value). */
function forwardedHeaders(request: FastifyRequest, names: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of names) {
    const value = request.headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) headers[name] = first;
  }
  return headers;
}

function hasAny(params: Record<string, string>): boolean {
  for (const _name in params) return true;
  return false;
}
