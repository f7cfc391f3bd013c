import type { LoggerService } from '@nestjs/common';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '@funnel/contracts';
import { type Logger, PinoNestLogger, type Registry } from '@funnel/platform';
import { Counter, Histogram } from 'prom-client';
import { METRICS_REGISTRY, ROUTE_TABLE } from '../gateway.tokens';
import { type RouteTable, pathUnderV1 } from '../route-table';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account once its credential is verified ('' before, and for public routes). */
    accountId: string;
  }
}

/** Records who sent a request, for its access log line. */
export function noteCaller(request: FastifyRequest, principal: Principal): void {
  request.accountId = principal.accountId;
}

/** The route label of requests no route serves: their paths are the client's choice, not a bounded set. */
export const UNMATCHED_ROUTE = 'unmatched';

/** Probes and scrapes: logged at debug, as they come every few seconds and say nothing about users. */
const OPS_ROUTES: ReadonlySet<string> = new Set(['/health/live', '/health/ready', '/metrics']);

/** The gateway's forwarded routes are one Fastify route; the route table names the real one. */
const FORWARDED_ROUTES = '/v1/*';

const HTTP_DURATION_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

type Labels = 'route' | 'method' | 'status';

export interface RequestObservabilityOptions {
  /** Where the access log goes (one line per request); none when absent. */
  logger?: Logger;
  /** Where `http_requests_total` and `http_request_duration_seconds` go; none when absent. */
  registry?: Registry;
  /** Names the forwarded /v1 routes; without it they count as one route, `/v1/*`. */
  routes?: RouteTable;
}

/**
 * Per request, once the answer is sent: an access log line at info (method, route pattern, status,
 * duration, correlation id, account id; never the URL, whose query may carry the `key` parameter,
 * nor any header) and the Prometheus series `http_requests_total` and
 * `http_request_duration_seconds` by route pattern, method and status.
 */
export function addRequestObservability(fastify: FastifyInstance, options: RequestObservabilityOptions): void {
  fastify.decorateRequest('accountId', '');
  const { logger, registry, routes } = options;
  const series = registry ? httpSeries(registry) : undefined;

  fastify.addHook('onResponse', (request, reply, done) => {
    const route = routePatternOf(request, routes);
    series?.({ route, method: request.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
    if (logger) logAccess(logger, request, reply, route);
    done();
  });
}

/**
 * Registers the hooks on the gateway app, taking the metrics registry and route table from its
 * GatewayModule and the access log from its pino logger.
 */
export function registerRequestObservability(app: NestFastifyApplication, logger: LoggerService | false): void {
  addRequestObservability(app.getHttpAdapter().getInstance(), {
    logger: logger instanceof PinoNestLogger ? logger.pino : undefined,
    registry: provided<Registry>(app, METRICS_REGISTRY),
    routes: provided<RouteTable>(app, ROUTE_TABLE),
  });
}

function provided<T>(app: NestFastifyApplication, token: symbol): T | undefined {
  try {
    return app.get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

function routePatternOf(request: FastifyRequest, routes: RouteTable | undefined): string {
  const pattern = request.routeOptions.url;
  if (pattern === undefined) return UNMATCHED_ROUTE;
  if (pattern !== FORWARDED_ROUTES || !routes) return pattern;
  const route = routes.match(request.method === 'HEAD' ? 'GET' : request.method, pathUnderV1(request.url));
  return route && route !== 'method-not-allowed' ? `/v1${route.path}` : UNMATCHED_ROUTE;
}

function logAccess(logger: Logger, request: FastifyRequest, reply: FastifyReply, route: string): void {
  const level = OPS_ROUTES.has(route) ? 'debug' : 'info';
  if (!logger.isLevelEnabled(level)) return;
  logger[level](
    {
      method: request.method,
      route,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime * 100) / 100,
      correlationId: request.id,
      accountId: request.accountId || undefined,
    },
    'request',
  );
}

/** Counts and times one answered request in the two series. */
function httpSeries(registry: Registry): (labels: Record<Labels, string>, seconds: number) => void {
  const requests =
    (registry.getSingleMetric('http_requests_total') as Counter<Labels> | undefined) ??
    new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [registry],
    });
  const duration =
    (registry.getSingleMetric('http_request_duration_seconds') as Histogram<Labels> | undefined) ??
    new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration in seconds (until the answer is sent) by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      buckets: HTTP_DURATION_BUCKETS_SECONDS,
      registers: [registry],
    });
  return (labels, seconds) => {
    requests.inc(labels);
    duration.observe(labels, seconds);
  };
}
