// What the visitor routes do, apart from HTTP: find the account, the funnel and the session, walk the
// engine, keep the session and the hits, and say what to answer.
import { Logger } from '@nestjs/common';
import { TRAFFIC_SOURCE_KIND, generateAssetId } from '@funnel/contracts';
import { PAGE_TYPE_OF_NODE } from '@funnel/assets-domain';
import {
  type EdgeRoutingVisitor,
  linkAccountOf,
  parseActionNumber,
  parseEntranceToken,
  postbackParamsOf,
  reportingHitsOf,
  urlParamsOf,
  viewTokensOf,
} from '@funnel/edge-domain';
import type { PostbackRelay } from '../postbacks';
import {
  type CompiledFunnel,
  type IdSource,
  type MiddlewareAnswer,
  type RandomSource,
  type RoutingSession,
  type RoutingStep,
  type WalkResult,
  walk,
} from '@funnel/routing';
import type { Hit, HitMiddlewareCall } from '@funnel/reporting-domain';
import { type EdgeMiddleware, settleMiddlewareCalls } from '../middleware';
import type { EdgeSnapshot } from '../snapshot';
import type { HitSink } from '../hits';
import type { SessionStore } from '../sessions';
import type { VisitorRequest, VisitorResolver } from '../visitor';
import type { EdgeRouteMetrics, VisitorOutcome, VisitorRoute } from './edge-route-metrics';
import { type VisitorAnswer, locationOf, metaRefreshAnswer, notFoundPage, probePage, redirectAnswer, unavailablePage } from './visitor-pages';

/** Without an EdgeMiddleware (tests of other parts) the edge calls no middleware destination: each middleware node takes its default route. */
export const MIDDLEWARE_NOT_CALLED = 'the edge calls no middleware destination here';
const noMiddlewareCalls = async (): Promise<MiddlewareAnswer> => ({ failure: MIDDLEWARE_NOT_CALLED });

/** The URL parameter carrying the visitor id (sessions without cookies). */
export const VISITOR_ID_PARAM = 'vid';

export interface VisitorLinksOptions {
  snapshot: Pick<EdgeSnapshot, 'funnel' | 'asset' | 'accountOfDomain'>;
  sessions: SessionStore;
  hits: HitSink;
  /** Incoming postbacks and isConversion actions go to reporting through it (absent: /pb/ is a 404 and conversions are not kept). */
  postbacks?: PostbackRelay;
  visitors: Pick<VisitorResolver, 'resolve'>;
  /** EDGE_DEFAULT_DOMAIN (normalised), whose links carry `/a/<accountId>/`. */
  defaultDomain?: string;
  metrics?: EdgeRouteMetrics;
  /** Calls middleware destinations; absent: every middleware node takes its default route (MIDDLEWARE_NOT_CALLED). */
  middleware?: EdgeMiddleware;
  logger?: Pick<Logger, 'warn'>;
  /** Tests only: the engine's chance and ids (default Math.random and generateAssetId). */
  random?: RandomSource;
  ids?: IdSource;
}

/** An answer and how it is counted. */
export type Answered<T = VisitorAnswer> = T & { outcome: VisitorOutcome };

/** A JSON answer of POST /js/funnel. */
export interface JsonAnswer {
  status: number;
  json: unknown;
}

/** The body of POST /js/funnel. */
interface ViewBody {
  url: string;
  referrer?: string;
  vid?: string;
  token?: string;
}

/** What the visitor sees for a dead end, by the engine's warning code; the reason itself stays in the logs. */
const DEAD_END_MESSAGES: Record<string, string> = {
  noSession: 'Your visit has expired, or this link was opened without visiting the page before it.',
  notOnPage: 'This link is not available from the page you came from.',
  unknownAction: 'This link is not available from the page you came from.',
};

const MAX_VIEW_TEXT = 4096;

export class VisitorLinks {
  private readonly random: RandomSource;
  private readonly ids: IdSource;
  private readonly logger: Pick<Logger, 'warn'>;

  constructor(private readonly options: VisitorLinksOptions) {
    this.random = options.random ?? Math.random;
    this.ids = options.ids ?? (() => generateAssetId());
    this.logger = options.logger ?? new Logger('VisitorLinks');
  }

  /** `GET /fts/<token>`: a new entrance of the funnel for the traffic source (at the token's node, else the root). */
  async entrance(request: VisitorRequest, accountInPath: string | undefined, tokenText: string): Promise<Answered> {
    const started = performance.now();
    const answer = await this.tryEntrance(request, accountInPath, tokenText);
    this.options.metrics?.answered('entrance', answer.outcome, (performance.now() - started) / 1000);
    return answer;
  }

  /** `GET /action/<n>?vid=<visitor>`: action n from the page the visitor is on. */
  async action(request: VisitorRequest, accountInPath: string | undefined, actionText: string): Promise<Answered> {
    const started = performance.now();
    const answer = await this.tryAction(request, accountInPath, actionText);
    this.options.metrics?.answered('action', answer.outcome, (performance.now() - started) / 1000);
    return answer;
  }

  /**
   * `HEAD /fts/<token>` and `HEAD /action/<n>`: link checkers and previewers (ad platforms' crawlers,
   * chat apps) ask with HEAD. They are answered whether the link leads anywhere (200 for an entrance
   * of a live funnel and a known traffic source, or an action of a known visit; 404 otherwise), with
   * no walk: no hit is counted, no session written, no middleware called, no rotation advanced.
   */
  async probe(request: VisitorRequest, accountInPath: string | undefined, link: { token: string } | { action: string }): Promise<Answered> {
    const started = performance.now();
    const route: VisitorRoute = 'token' in link ? 'entrance' : 'action';
    const answer = await this.tryProbe(request, accountInPath, link);
    this.options.metrics?.answered(route, answer.outcome, (performance.now() - started) / 1000);
    return answer;
  }

  private async tryProbe(request: VisitorRequest, accountInPath: string | undefined, link: { token: string } | { action: string }): Promise<Answered> {
    const account = this.accountOf(request, accountInPath);
    if (account === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    if ('token' in link) {
      const parsed = parseEntranceToken(link.token);
      if (!parsed.ok) return { ...notFoundPage(), outcome: 'not_found' };
      const live =
        this.liveFunnel(account, parsed.token.idFunnel) !== undefined &&
        this.options.snapshot.asset(account, TRAFFIC_SOURCE_KIND.kind, parsed.token.idTrafficSource) !== undefined;
      return live ? { ...probePage(), outcome: 'probe' } : { ...notFoundPage(), outcome: 'not_found' };
    }
    if (parseActionNumber(link.action) === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    const session = await this.sessionOf(account, urlParamsOf(request.query)[VISITOR_ID_PARAM]);
    if (session === 'failed') return { ...unavailablePage(), outcome: 'unavailable' };
    if (session === null || this.liveFunnel(account, session.idFunnel) === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    return { ...probePage(), outcome: 'probe' };
  }

  /** `POST /js/funnel`: a page view (`vid`) or a no-redirect entrance (`token`); answers the resolved tokens. */
  async view(request: VisitorRequest, accountInPath: string | undefined, body: unknown): Promise<Answered<JsonAnswer>> {
    const started = performance.now();
    const answer = await this.tryView(request, accountInPath, body);
    this.options.metrics?.answered('view', answer.outcome, (performance.now() - started) / 1000);
    return answer;
  }

  /**
   * `GET|POST /pb/?hit=&tx=&rev=` (and the aliases of POSTBACK_PARAM_ALIASES): a network's postback,
   * handed to reporting, which queues it and logs it before the answer. Any postback on a link of an
   * account is answered 200 `OK` once kept, whatever its outcome (networks retry on errors): an
   * unknown or another account's hit, or bad values, are logged, not refused. 503 when reporting
   * could not keep it; 404 for a host that is no account's.
   */
  async postback(request: VisitorRequest, accountInPath: string | undefined, form: unknown): Promise<Answered> {
    const started = performance.now();
    const answer = await this.tryPostback(request, accountInPath, form);
    this.options.metrics?.answered('postback', answer.outcome, (performance.now() - started) / 1000);
    return answer;
  }

  private async tryPostback(request: VisitorRequest, accountInPath: string | undefined, form: unknown): Promise<Answered> {
    const account = this.accountOf(request, accountInPath);
    const relay = this.options.postbacks;
    if (account === undefined || relay === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    const params = postbackParamsOf(request.query, form);
    try {
      await relay.hand({ accountId: account, source: 'postback', ...params, ip: request.ip ?? '', receivedAt: new Date().toISOString() });
    } catch (error) {
      this.logger.warn(`a postback was answered 503: ${(error as Error).message}`);
      return { ...unavailablePage(), outcome: 'unavailable' };
    }
    return {
      status: 200,
      headers: { 'cache-control': 'no-store', 'x-robots-tag': 'noindex, nofollow', 'content-type': 'text/plain; charset=utf-8' },
      body: 'OK',
      outcome: 'postback',
    };
  }

  private async tryEntrance(request: VisitorRequest, accountInPath: string | undefined, tokenText: string): Promise<Answered> {
    const account = this.accountOf(request, accountInPath);
    const parsed = parseEntranceToken(tokenText);
    if (account === undefined || !parsed.ok) return { ...notFoundPage(), outcome: 'not_found' };
    const { idFunnel, idTrafficSource, idNode } = parsed.token;
    const funnel = this.liveFunnel(account, idFunnel);
    if (funnel === undefined || this.options.snapshot.asset(account, TRAFFIC_SOURCE_KIND.kind, idTrafficSource) === undefined) {
      return { ...notFoundPage(), outcome: 'not_found' };
    }
    const visitor = this.options.visitors.resolve(request);
    this.entranceAttributes(visitor, idTrafficSource);
    // A new visitor (no vid, the common case) has no session to read: no wait for the store.
    const vid = visitor.params[VISITOR_ID_PARAM];
    const session = vid === undefined || vid === '' ? null : await this.sessionOf(account, vid);
    if (session === 'failed') return { ...unavailablePage(), outcome: 'unavailable' };
    const step: RoutingStep = { entrance: { idTrafficSource, idNode, url: visitor.attributes.currentURL, cost: visitor.params['cost'] } };
    const result = await this.walk('entrance', account, funnel, visitor, session, step);
    const answer = this.redirectOf(result);
    return (await this.keep(account, visitor, result)) ? answer : { ...unavailablePage(), outcome: 'unavailable' };
  }

  private async tryAction(request: VisitorRequest, accountInPath: string | undefined, actionText: string): Promise<Answered> {
    const account = this.accountOf(request, accountInPath);
    const action = parseActionNumber(actionText);
    if (account === undefined || action === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    const visitor = this.options.visitors.resolve(request);
    const session = await this.sessionOf(account, visitor.params[VISITOR_ID_PARAM]);
    if (session === 'failed') return { ...unavailablePage(), outcome: 'unavailable' };
    if (session === null) return { ...notFoundPage(DEAD_END_MESSAGES['noSession']), outcome: 'dead_end' };
    const funnel = this.liveFunnel(account, session.idFunnel);
    if (funnel === undefined) return { ...notFoundPage(), outcome: 'not_found' };
    visitor.attributes.trafficSourceID = session.idTrafficSource;
    const result = await this.walk('action', account, funnel, visitor, session, { action });
    const answer = this.redirectOf(result);
    return (await this.keep(account, visitor, result)) ? answer : { ...unavailablePage(), outcome: 'unavailable' };
  }

  private async tryView(request: VisitorRequest, accountInPath: string | undefined, raw: unknown): Promise<Answered<JsonAnswer>> {
    const body = viewBodyOf(raw);
    if (typeof body === 'string') return { status: 400, json: { error: body }, outcome: 'bad_request' };
    const account = this.accountOf(request, accountInPath);
    if (account === undefined) return notFoundJson('this is not a tracking link of this service');
    if (body.token === undefined) {
      // A page view of a visitor the edge redirected: the redirect's hit is the page's view; nothing new is recorded.
      if (body.vid === undefined) return { status: 400, json: { error: 'give vid (a view) or token (a no-redirect entrance)' }, outcome: 'bad_request' };
      const session = await this.sessionOf(account, body.vid);
      if (session === 'failed') return { status: 503, json: { error: 'briefly unavailable: please try again' }, outcome: 'unavailable' };
      if (session === null) return notFoundJson('no visit is known for this vid (expired, or never started)');
      return { status: 200, json: viewTokensOf(session), outcome: 'view' };
    }
    const parsed = parseEntranceToken(body.token);
    if (!parsed.ok || parsed.token.idNode === undefined)
      return notFoundJson('a no-redirect entrance token names a funnel, a traffic source and a lander or offer node');
    const { idFunnel, idTrafficSource, idNode } = parsed.token;
    const funnel = this.liveFunnel(account, idFunnel);
    const node = funnel?.assets.funnel.nodes.find((candidate) => candidate.idNode === idNode);
    if (
      funnel === undefined ||
      node === undefined ||
      PAGE_TYPE_OF_NODE[node.nodeType] === undefined ||
      this.options.snapshot.asset(account, TRAFFIC_SOURCE_KIND.kind, idTrafficSource) === undefined
    ) {
      return notFoundJson('this entrance token names no lander or offer of a live funnel');
    }
    const visitor = this.options.visitors.resolve(viewRequestOf(request, body));
    visitor.attributes.currentURL = body.url;
    this.entranceAttributes(visitor, idTrafficSource);
    const session = await this.sessionOf(account, body.vid);
    if (session === 'failed') return { status: 503, json: { error: 'briefly unavailable: please try again' }, outcome: 'unavailable' };
    const step: RoutingStep = { entrance: { idTrafficSource, idNode, url: body.url, cost: visitor.params['cost'] } };
    const result = await this.walk('view', account, funnel!, visitor, session, step);
    const ok: Answered<JsonAnswer> =
      result.destination.type === 'deadEnd' ? notFoundJson('this entrance led nowhere') : { status: 200, json: viewTokensOf(result.session), outcome: 'view' };
    const kept = await this.keep(account, visitor, result);
    return kept ? ok : { status: 503, json: { error: 'briefly unavailable: please try again' }, outcome: 'unavailable' };
  }

  private accountOf(request: VisitorRequest, accountInPath: string | undefined): string | undefined {
    const { snapshot, defaultDomain } = this.options;
    const found = linkAccountOf({ host: request.host, accountInPath, defaultDomain, accountOfDomain: (host) => snapshot.accountOfDomain(host) });
    return found.ok ? found.accountId : undefined;
  }

  /** The account's funnel when it can be entered: not deleted, not archived. */
  private liveFunnel(account: string, idFunnel: string): CompiledFunnel | undefined {
    const funnel = this.options.snapshot.funnel(account, idFunnel);
    return funnel === undefined || funnel.assets.funnel.status === 'archived' ? undefined : funnel;
  }

  /** The attributes only the link knows: the traffic source, and the visit's first referrer (this one). */
  private entranceAttributes(visitor: EdgeRoutingVisitor, idTrafficSource: string): void {
    // The request's own attributes object (resolve makes one per request): set in place, not copied.
    const attributes = visitor.attributes;
    attributes.trafficSourceID = idTrafficSource;
    attributes.initialReferrer = attributes.referrer;
  }

  /** The visitor's session when `vid` names one; 'failed' when the store failed. */
  private async sessionOf(account: string, vid: string | undefined): Promise<RoutingSession | null | 'failed'> {
    if (vid === undefined || vid === '') return null;
    try {
      return await this.options.sessions.get(account, vid);
    } catch (error) {
      this.logger.warn(`session read failed: ${(error as Error).message}`);
      return 'failed';
    }
  }

  /** The walk, its middleware nodes' destinations called (the request's budget counted from the walk's start). */
  private async walk(
    route: VisitorRoute,
    account: string,
    funnel: CompiledFunnel,
    visitor: EdgeRoutingVisitor,
    session: RoutingSession | null,
    step: RoutingStep,
  ): Promise<EdgeWalk> {
    const started = performance.now();
    // The request's middleware port (its calls map and closure) only for a funnel that has middleware nodes.
    const middleware = hasMiddlewareNodes(funnel) ? this.options.middleware?.forRequest(account, funnel.assets.funnel.idFunnel, started) : undefined;
    const result: EdgeWalk = await walk(funnel, { visitor, session, step, random: this.random, ids: this.ids }, middleware?.port ?? noMiddlewareCalls);
    if (middleware !== undefined && middleware.calls.size > 0) result.middlewareCalls = settleMiddlewareCalls(middleware.calls, result.effects);
    this.options.metrics?.walked(route, (performance.now() - started) / 1000);
    return result;
  }

  /** The answer of a walk's destination (before its hits are kept). */
  private redirectOf(result: WalkResult): Answered {
    const { destination } = result;
    if (destination.type === 'deadEnd') {
      const code = result.warnings.length > 0 ? result.warnings[result.warnings.length - 1].code : '';
      return { ...notFoundPage(DEAD_END_MESSAGES[code]), outcome: 'dead_end' };
    }
    const location = locationOf(result.url ?? '');
    if (location === undefined) return { ...notFoundPage(), outcome: 'dead_end' };
    if (destination.type === 'url') return redirected(302, location);
    switch (destination.redirectType) {
      case '301':
        return redirected(301, location);
      case '307':
        return redirected(307, location);
      case 'umr':
        return { ...metaRefreshAnswer(location), outcome: 'meta_refresh' };
      default:
        return redirected(302, location);
    }
  }

  /** The session and the hits of a walk, written together; false when either failed (nothing is answered as done then). */
  private async keep(account: string, visitor: EdgeRoutingVisitor, result: EdgeWalk): Promise<boolean> {
    const writes: Promise<void>[] = [];
    if (result.session.visitorId !== '') writes.push(this.options.sessions.put(account, result.session));
    if (result.hits.length > 0)
      writes.push(this.options.hits.record(withMiddlewareCalls(reportingHitsOf(account, visitor, result.hits), result.middlewareCalls)));
    // An isConversion action: a conversion of the offer's hit at the offer's payout, the way a network's postback goes.
    const relay = this.options.postbacks;
    for (const effect of result.effects) {
      if (effect.type !== 'conversion' || relay === undefined) continue;
      const receivedAt = new Date(visitor.time).toISOString();
      writes.push(
        relay
          .hand({ accountId: account, source: 'action', hitId: effect.hitId, transactionId: '', revenue: effect.payout, ip: visitor.ip, receivedAt })
          .then(() => undefined),
      );
    }
    try {
      await Promise.all(writes);
      return true;
    } catch (error) {
      this.logger.warn(`a visitor request was answered 503: ${(error as Error).message}`);
      return false;
    }
  }
}

/** Whether a compiled funnel has middleware nodes, by funnel (found once per compiled version). */
const middlewareNodesOf = new WeakMap<CompiledFunnel, boolean>();

function hasMiddlewareNodes(funnel: CompiledFunnel): boolean {
  let has = middlewareNodesOf.get(funnel);
  if (has === undefined) {
    has = funnel.assets.funnel.nodes.some((node) => node.nodeType === 'middleware');
    middlewareNodesOf.set(funnel, has);
  }
  return has;
}

/** A walk, with the middleware calls it made by their nodes' hit ids. */
type EdgeWalk = WalkResult & { middlewareCalls?: Map<string, HitMiddlewareCall> };

/** Each middleware node's hit carries its call (recorded with the hit: durable before the answer, counted once). */
function withMiddlewareCalls(hits: Hit[], calls: Map<string, HitMiddlewareCall> | undefined): Hit[] {
  if (calls === undefined) return hits;
  for (const hit of hits) {
    const call = calls.get(hit.hitId);
    if (call !== undefined) hit.middleware = call;
  }
  return hits;
}

/** A redirect answer (a literal, not a spread: every redirect makes one). */
function redirected(status: 301 | 302 | 307, location: string): Answered {
  const { headers } = redirectAnswer(status, location);
  return { status, headers, outcome: 'redirect' };
}

function notFoundJson(error: string): Answered<JsonAnswer> {
  return { status: 404, json: { error }, outcome: 'not_found' };
}

/** The body of POST /js/funnel, or why it is refused. */
function viewBodyOf(raw: unknown): ViewBody | string {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'the body is a JSON object { url, referrer?, vid?, token? }';
  const body = raw as Record<string, unknown>;
  for (const field of ['url', 'referrer', 'vid', 'token'] as const) {
    const value = body[field];
    if (value !== undefined && value !== null && (typeof value !== 'string' || value.length > MAX_VIEW_TEXT)) {
      return `${field} is a string of at most ${MAX_VIEW_TEXT} characters`;
    }
  }
  if (typeof body['url'] !== 'string' || !/^https?:\/\//i.test(body['url']) || !URL.canParse(body['url'])) return 'url is the page address (http or https)';
  const text = (field: string) => (typeof body[field] === 'string' && body[field] !== '' ? (body[field] as string) : undefined);
  return { url: body['url'], referrer: text('referrer'), vid: text('vid'), token: text('token') };
}

/** A no-redirect entrance reads the page's URL parameters and the page's referrer, not the script request's. */
function viewRequestOf(request: VisitorRequest, body: ViewBody): VisitorRequest {
  const query: Record<string, string> = {};
  for (const [name, value] of new URL(body.url).searchParams) query[name] = value;
  return {
    ip: request.ip,
    headers: { 'user-agent': request.headers['user-agent'], 'accept-language': request.headers['accept-language'], referer: body.referrer },
    query: urlParamsOf(query),
    url: request.url,
    protocol: request.protocol,
    host: request.host,
  };
}
