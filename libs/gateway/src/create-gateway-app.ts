import { DynamicModule, LoggerService, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { randomUUID } from 'node:crypto';
import { HttpErrorFilter } from './http-errors';
import { registerRequestObservability } from './observability/request-observability';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * The gateway's HTTP app on Fastify: 1 MiB body limit (413 above), routes with and without the
 * trailing slash, a correlation id per request (X-Correlation-Id in and out), and every failure,
 * including Fastify's own (bad JSON, body too large), answered with the one error body.
 */
export async function createGatewayApp(
  module: Type<unknown> | DynamicModule,
  logger: LoggerService | false,
  options: { trustProxy?: boolean } = {},
): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    // No Nest middleware here; without this, @fastify/middie adds a hook to every request.
    skipMiddie: true,
    bodyLimit: MAX_BODY_BYTES,
    routerOptions: { ignoreTrailingSlash: true },
    logger: false,
    requestIdHeader: 'x-correlation-id',
    genReqId: () => randomUUID(),
    // Behind an ingress the client address comes from X-Forwarded-For (login throttling needs it).
    trustProxy: options.trustProxy ?? false,
  });
  const app = await NestFactory.create<NestFastifyApplication>(module, adapter, { logger, bufferLogs: false });
  // Every failure, Fastify's own included, reaches this filter: Nest installs Fastify's error
  // handler at init and hands errors to its exception filters.
  app.useGlobalFilters(new HttpErrorFilter());
  const fastify = app.getHttpAdapter().getInstance();
  registerRequestObservability(app, logger);
  // A synchronous hook: an async one costs a promise per request on the hottest path.
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header('x-correlation-id', request.id);
    done();
  });
  return app;
}
