// The tracking edge's HTTP server: plain Fastify (no Nest, no /v1 gateway: the edge's speed is the
// visitor's wait), the visitor routes in both link forms, the domain check, probes and metrics.
import { parse as parseQuery } from 'node:querystring';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Registry } from 'prom-client';
import { type ReadinessCheck, readinessReport, trustProxyOption } from '@funnel/platform';
import { MAX_PARAMS, normaliseHost } from '@funnel/edge-domain';
import type { EdgeHttpLimits } from './edge-routes-config';
import { type Answered, type JsonAnswer, VisitorLinks } from './visitor-links';
import { type VisitorAnswer, badRequestPage, notFoundPage, unavailablePage } from './visitor-pages';

/** The path billing's domain check asks (DOMAIN_CHECK_PATH of @funnel/billing-feature) and the name it expects. */
export const EDGE_DOMAIN_CHECK_PATH = '/debug/domain-check';
export const EDGE_SERVICE_NAME = 'funnel-edge';
/** The largest POST /js/funnel body. */
export const VIEW_BODY_LIMIT = 16 * 1024;
/** Query parameters parsed per request at most (the visitor context reads the first MAX_PARAMS). */
const MAX_QUERY_KEYS = MAX_PARAMS + 28;

export interface EdgeHttpAppOptions {
  links: VisitorLinks;
  registry: Registry;
  /** Ready once every check passes (the snapshot loaded, the stores open). */
  readiness: readonly ReadinessCheck[];
  /** Whether visitor links can be served (the snapshot loaded): before, they are answered 503, not 404. */
  serving: () => boolean;
  /** TRUSTED_PROXIES: the client address is the rightmost X-Forwarded-For entry that is not one of them. */
  trustedProxies?: readonly string[];
  checkToken?: string;
  limits: EdgeHttpLimits;
  timeouts?: { headersMs: number; requestMs: number; keepAliveMs: number };
}

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};

type Params = { account?: string; token?: string; n?: string };

function send(reply: FastifyReply, answer: VisitorAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .headers(answer.headers)
    .send(answer.body ?? '');
}

function sendJson(reply: FastifyReply, answer: JsonAnswer): FastifyReply {
  return reply
    .code(answer.status)
    .headers({ ...CORS, 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' })
    .send(JSON.stringify(answer.json));
}

/**
 * The edge's Fastify app (not listening yet). Visitor routes on a custom domain: `GET /fts/<token>`,
 * `GET /action/<n>` (HEAD of both: answered without a walk, see VisitorLinks.probe), `POST /js/funnel` (+ OPTIONS); the same under `/a/<accountId>` on the default
 * domain. `GET /debug/domain-check`, `/health/live`, `/health/ready`, `/metrics`. Bad input is a 4xx
 * page (JSON on /js/funnel), never a 5xx; a request target longer than `limits.maxUrlBytes` is 414,
 * headers over `limits.maxHeaderBytes` 431 (Node), a body over 16 KiB 413.
 */
export function createEdgeHttpApp(options: EdgeHttpAppOptions): FastifyInstance {
  const { links, limits } = options;
  const timeouts = options.timeouts ?? { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 65_000 };
  const app = Fastify({
    logger: false,
    trustProxy: trustProxyOption(options.trustedProxies),
    bodyLimit: VIEW_BODY_LIMIT,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    return503OnClosing: true,
    http: { maxHeaderSize: limits.maxHeaderBytes, headersTimeout: Math.min(timeouts.headersMs, timeouts.requestMs), connectionsCheckingInterval: 1000 },
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 100,
      querystringParser: (text: string) => parseQuery(text, '&', '=', { maxKeys: MAX_QUERY_KEYS }),
    },
  });

  // Page scripts post JSON; as text/plain too, which needs no CORS preflight.
  app.addContentTypeParser(['application/json', 'text/plain'], { parseAs: 'string', bodyLimit: VIEW_BODY_LIMIT }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(Object.assign(new Error('the body is not JSON'), { statusCode: 400 }), undefined);
    }
  });

  // Postbacks may come as a form.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: VIEW_BODY_LIMIT }, (_request, body, done) => {
    done(null, parseQuery(body as string, '&', '=', { maxKeys: MAX_QUERY_KEYS }));
  });

  app.addHook('onRequest', (request, reply, done) => {
    if (request.raw.url !== undefined && request.raw.url.length > limits.maxUrlBytes) {
      send(reply, badRequestPage(414, 'This link is longer than this service takes.'));
      return;
    }
    done();
  });

  app.setNotFoundHandler((_request, reply) => send(reply, notFoundPage()));
  // Fastify's own refusals (a body too large or not JSON, a malformed URL) and anything unexpected: no stack, no 5xx for bad input.
  app.setErrorHandler((error: { statusCode?: number; message?: string }, request, reply) => {
    const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (status === 500) request.log.error(error);
    const isView = request.url.includes('/js/funnel');
    if (isView) return sendJson(reply, { status, json: { error: status === 500 ? 'internal error' : (error.message ?? 'bad request') } });
    return send(
      reply,
      status === 500 ? { ...notFoundPage(), status: 500, body: 'internal error' } : badRequestPage(status, 'This request is not one this service takes.'),
    );
  });

  const { serving } = options;
  const entrance = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) =>
    send(reply, serving() ? await links.entrance(request, request.params.account, request.params.token ?? '') : unavailablePage());
  const action = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) =>
    send(reply, serving() ? await links.action(request, request.params.account, request.params.n ?? '') : unavailablePage());
  const view = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    if (!serving()) return sendJson(reply, { status: 503, json: { error: 'briefly unavailable: please try again' } });
    const answer: Answered<JsonAnswer> = await links.view(request, request.params.account, request.body);
    return sendJson(reply, answer);
  };
  const postback = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) =>
    send(reply, serving() ? await links.postback(request, request.params.account, request.body) : unavailablePage());
  // HEAD (link checkers, previewers): answered without a walk, so never counted as a click.
  const probeEntrance = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) =>
    send(reply, serving() ? await links.probe(request, request.params.account, { token: request.params.token ?? '' }) : unavailablePage());
  const probeAction = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) =>
    send(reply, serving() ? await links.probe(request, request.params.account, { action: request.params.n ?? '' }) : unavailablePage());
  const preflight = (_request: FastifyRequest, reply: FastifyReply) => reply.code(204).headers(CORS).send();

  for (const prefix of ['', '/a/:account']) {
    app.get(`${prefix}/fts/:token`, { exposeHeadRoute: false }, entrance);
    app.head(`${prefix}/fts/:token`, probeEntrance);
    app.get(`${prefix}/action/:n`, { exposeHeadRoute: false }, action);
    app.head(`${prefix}/action/:n`, probeAction);
    app.post(`${prefix}/js/funnel`, view);
    app.options(`${prefix}/js/funnel`, preflight);
    // Incoming postbacks: GET with a query, or POST with a form (or query).
    app.get(`${prefix}/pb`, postback);
    app.post(`${prefix}/pb`, postback);
  }

  app.get(EDGE_DOMAIN_CHECK_PATH, (request, reply) => {
    const answer: Record<string, string> = { service: EDGE_SERVICE_NAME, domain: normaliseHost(request.host) };
    if (options.checkToken !== undefined) answer['token'] = options.checkToken;
    return reply.code(200).headers({ 'cache-control': 'no-store', 'content-type': 'application/json' }).send(JSON.stringify(answer));
  });
  app.get('/health/live', (_request, reply) => reply.code(200).header('cache-control', 'no-store').send({ status: 'ok' }));
  app.get('/health/ready', async (_request, reply) => {
    const report = await readinessReport(options.readiness);
    return reply
      .code(report.ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(report);
  });
  app.get('/metrics', async (_request, reply) =>
    reply
      .code(200)
      .header('content-type', options.registry.contentType)
      .send(await options.registry.metrics()),
  );
  return app;
}
