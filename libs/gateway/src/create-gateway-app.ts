import { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { trustProxyOption } from '@funnel/platform';
import { HttpErrorFilter, answerClientError, correlationIdOf, sendHttpError } from './http-errors';
import { MAX_BODY_BYTES, useJsonBodiesOnly } from './limits/json-body';
import { registerRequestObservability } from './observability/request-observability';

export { MAX_BODY_BYTES, MAX_JSON_DEPTH } from './limits/json-body';

/** How long a client may take, in milliseconds. */
export interface HttpTimeouts {
  /** To send the request's headers (Node's headersTimeout; at most `requestMs`). */
  headersMs: number;
  /** To send the whole request, headers and body (requestTimeout). */
  requestMs: number;
  /** To start the next request on an idle keep-alive connection (keepAliveTimeout). */
  keepAliveMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 65_000 };

/** Headers a browser script may read on a cross-origin answer. */
const EXPOSED_HEADERS = ['x-correlation-id', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'etag', 'x-next-cursor'];

export interface GatewayHttpOptions {
  /**
   * The proxies in front (TRUSTED_PROXIES): the client address is the rightmost X-Forwarded-For entry
   * that is not one of them (the entries left of it are client-chosen); without any, the socket's peer.
   */
  trustedProxies?: readonly string[];
  /** Origins allowed to call the API from a browser (CORS); none when empty. */
  corsOrigins?: readonly string[];
  timeouts?: HttpTimeouts;
}

/**
 * The gateway's HTTP app on Fastify: JSON bodies only (415 otherwise) up to 1 MiB (413 above) and
 * 64 levels deep (400 deeper), routes with and without the trailing slash and HEAD on every GET
 * route, slow clients cut off (`timeouts`), CORS for the listed origins, a correlation id per
 * request (X-Correlation-Id in and out; a client's only when it is 1..128 characters of
 * `A-Z a-z 0-9 . _ : -`), and every failure, including Fastify's own (bad JSON or URL, body too
 * large) and Node's (a request that is not valid HTTP), answered with the one error body.
 */
export async function createGatewayApp(
  module: Type<unknown> | DynamicModule,
  logger: LoggerService | false,
  options: GatewayHttpOptions = {},
): Promise<NestFastifyApplication> {
  const timeouts = options.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const adapter = new FastifyAdapter({
    // No Nest middleware here; without this, @fastify/middie adds a hook to every request.
    skipMiddie: true,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    logger: false,
    // The client's X-Correlation-Id only when it is short and plain (correlationIdOf), else a new one.
    requestIdHeader: false,
    genReqId: correlationIdOf,
    clientErrorHandler: answerClientError,
    trustProxy: trustProxyOption(options.trustedProxies),
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    http: {
      headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs),
      // Node checks the two timeouts above on this interval (30 s by default, which would double them).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersMs),
    },
    // A URL the router cannot decode never reaches a hook or a handler: answer it here.
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      void reply.header('x-correlation-id', request.id);
      sendHttpError(error, request, reply);
    },
  });
  // bodyParser false: Nest would add its JSON and form parsers; the gateway takes JSON only.
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { logger, bufferLogs: false, bodyParser: false });
  // Every failure, Fastify's own included, reaches this filter: Nest installs Fastify's error
  // handler at init and hands errors to its exception filters.
  app.useGlobalFilters(new HttpErrorFilter());
  const fastify = app.getHttpAdapter().getInstance();
  useJsonBodiesOnly(fastify);
  if (options.corsOrigins?.length) {
    app.enableCors({
      origin: [...options.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  registerRequestObservability(app, logger);
  // A synchronous hook: an async one costs a promise per request on the hottest path.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-correlation-id', request.id);
    done();
  });
  return app;
}
