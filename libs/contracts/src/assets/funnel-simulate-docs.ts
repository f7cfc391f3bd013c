// The answer of POST /funnel/simulate/ as the API document shows it (the routing engine's WalkResult per
// request, with every asset id named), and a worked example of a request and its answer.
import type { JsonSchema } from './asset-kind';

const STRING = { type: 'string' };
const NAME = { type: 'string', description: "the named asset's name (absent when the asset is missing)" };
const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } };
const ID_LIST = { type: 'array', items: { type: 'string' } };
const NULLABLE_STRING = { type: ['string', 'null'] };

/** Why a walk decided what it did at one node (the engine's StepDecision), one schema per `kind`. */
const DECISION: JsonSchema = {
  type: 'object',
  required: ['kind'],
  description:
    '`entrance` (the cost and where it came from), `weight` (the draw in [0, 1), the connection taken, its share, sticky), `condition` (the route key, the matched route, why), ' +
    "`logic` (the script's key, fallback, reason), `ai`, `middleware` (the route, `answer` or `default`, why), `page` (the page drawn), `action`, `passThrough`, `url`",
  properties: {
    kind: { type: 'string', enum: ['entrance', 'weight', 'condition', 'logic', 'ai', 'middleware', 'page', 'action', 'passThrough', 'url'] },
    idConnection: NULLABLE_STRING,
    drawn: { type: 'number' },
    share: { type: 'number' },
    routeKey: STRING,
    reason: STRING,
  },
};

const WALK_STEP: JsonSchema = {
  type: 'object',
  required: ['idNode', 'nodeName', 'nodeType', 'hitId', 'decision'],
  properties: { idNode: STRING, nodeName: STRING, nodeType: STRING, hitId: STRING, decision: DECISION },
};

const HIT: JsonSchema = {
  type: 'object',
  required: ['hitId', 'visitorId', 'idFunnel', 'idNode', 'nodeType', 'isEntrance', 'action', 'previousHitId', 'cost', 'time'],
  properties: {
    hitId: STRING,
    visitorId: STRING,
    idFunnel: STRING,
    funnelName: NAME,
    idFunnelGroup: STRING,
    funnelGroupName: NAME,
    idTrafficSource: STRING,
    trafficSourceName: NAME,
    idNode: STRING,
    nodeName: NAME,
    nodeType: STRING,
    idPage: STRING,
    pageName: NAME,
    idOfferSource: STRING,
    offerSourceName: NAME,
    isEntrance: { type: 'boolean' },
    action: { type: 'integer', minimum: 0, maximum: 64 },
    previousHitId: STRING,
    cost: { type: 'string', description: 'decimal text' },
    time: { type: 'integer', description: 'UTC epoch milliseconds' },
    trackingFields: STRING_MAP,
    visitorTags: ID_LIST,
  },
};

const DESTINATION: JsonSchema = {
  type: 'object',
  required: ['type', 'idNode'],
  description: '`page` (a lander or offer: its page and URL), `url` (an external URL node) or `deadEnd` (with the reason)',
  properties: {
    type: { type: 'string', enum: ['page', 'url', 'deadEnd'] },
    idNode: STRING,
    nodeName: NAME,
    idPage: STRING,
    pageName: NAME,
    pageType: { type: 'string', enum: ['lander', 'offer'] },
    redirectType: STRING,
    url: STRING,
    reason: STRING,
  },
};

const SESSION: JsonSchema = {
  type: 'object',
  required: ['visitorId', 'idFunnel', 'currentNode', 'tags', 'sticky', 'urlBuffer'],
  description: "the visitor's session after the request (carried to the next request of the simulation)",
  properties: {
    visitorId: STRING,
    startedAt: { type: 'integer' },
    idFunnel: STRING,
    idTrafficSource: STRING,
    currentNode: STRING,
    lastHitId: STRING,
    currentPage: STRING,
    trackingFields: STRING_MAP,
    cost: STRING,
    tags: ID_LIST,
    sticky: { type: 'object', additionalProperties: { type: 'string' }, description: 'session rotator id -> the connection chosen' },
    urlBuffer: STRING_MAP,
  },
};

const EFFECT: JsonSchema = {
  type: 'object',
  required: ['type', 'idNode'],
  description:
    'what the request would cause beyond its answer (nothing is sent or recorded): `webhookDispatch`, `middlewareCall`, `tagsSet`, `conversion` (an `isConversion` action from an offer, at its payout)',
  properties: {
    type: { type: 'string', enum: ['webhookDispatch', 'middlewareCall', 'tagsSet', 'conversion'] },
    idNode: STRING,
    nodeName: NAME,
  },
};

const WARNING: JsonSchema = {
  type: 'object',
  required: ['code', 'message'],
  description:
    'weightsSum, noDefaultRoute, deadEnd, loopCut, missingAsset, emptyPageGroup, unknownAction, noSession, middlewareNotAnswered (no answer in the request: the default route), middlewareCallFailed ("call": the call failed or timed out, the default route), middlewareNoMatch ("call": the answer matched no route, the default route) ...',
  properties: { code: STRING, idNode: STRING, nodeName: NAME, message: STRING },
};

/** One request of the simulation walked: the engine's WalkResult with every asset id named. */
const SIMULATED_STEP: JsonSchema = {
  type: 'object',
  required: ['step', 'steps', 'hits', 'url', 'destination', 'session', 'effects', 'warnings'],
  properties: {
    step: { type: 'object', description: 'the request walked, as given' },
    steps: { type: 'array', items: WALK_STEP, description: 'the nodes visited in order, each with its decision' },
    hits: { type: 'array', items: HIT, description: 'the hits it would record' },
    url: { ...NULLABLE_STRING, description: 'the redirect with every token replaced and `vid=` added; null at a dead end' },
    destination: DESTINATION,
    session: SESSION,
    effects: { type: 'array', items: EFFECT },
    warnings: { type: 'array', items: WARNING },
  },
};

export const SIMULATE_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['seed', 'idFunnel', 'funnelName', 'warnings', 'steps'],
  additionalProperties: false,
  properties: {
    seed: {
      type: ['string', 'integer'],
      description: 'the seed of the random draws (the one given, else a new one): the same request with it gives the same walk',
    },
    idFunnel: STRING,
    funnelName: STRING,
    warnings: { type: 'array', items: WARNING, description: 'warnings of the funnel itself, which hold for every walk' },
    steps: { type: 'array', items: SIMULATED_STEP, description: 'one entry per request, in turn' },
  },
};

const FUNNEL = 'Fq2kLm9Xw3Ta';
const SOURCE = 'Ts7bN4pQr1Zc';
const ROOT = 'Nr0tAbCdEf12';
const LANDERS = 'NlAnDeRs0001';
const OFFERS = 'NoFfErS00001';
const LANDER_PAGE = 'PqUiZ0000001';
const OFFER_PAGE = 'PsWeEpS00001';
const TIME = Date.UTC(2025, 2, 1, 18, 30);

/** A worked example: a German iPhone enters by a push source, reads the lander, and clicks through to the offer (action 1, a conversion). */
export const SIMULATE_BODY_EXAMPLE = {
  idFunnel: FUNNEL,
  visitor: { visitor: { country: 'DE', deviceType: 'mobile', os: 'iOS', utcOffsetHours: 1 }, trackingFields: { zone: '4411' }, time: '2025-03-01T18:30:00Z' },
  steps: [{ entrance: { idTrafficSource: SOURCE } }, { action: 1 }],
  seed: 'replay-42',
};

const session = (currentNode: string, currentPage: string, lastHitId: string) => ({
  visitorId: 'Vx1s1t0r0001',
  startedAt: TIME,
  idFunnel: FUNNEL,
  idTrafficSource: SOURCE,
  currentNode,
  lastHitId,
  currentPage,
  trackingFields: { c1: '4411' },
  cost: '0.02',
  tags: [],
  sticky: {},
  urlBuffer: { zone: '4411' },
});
const hit = (hitId: string, idNode: string, nodeName: string, nodeType: string, over: Record<string, unknown>) => ({
  hitId,
  visitorId: 'Vx1s1t0r0001',
  idFunnel: FUNNEL,
  funnelName: 'Spring sale',
  idFunnelGroup: 'Gs9pRiNg0001',
  funnelGroupName: 'Spring',
  idTrafficSource: SOURCE,
  trafficSourceName: 'Push network',
  idNode,
  nodeName,
  nodeType,
  idPage: '',
  idOfferSource: '',
  isEntrance: false,
  action: 0,
  previousHitId: '',
  cost: '0',
  time: TIME,
  trackingFields: { c1: '4411' },
  visitorTags: [],
  ...over,
});

export const SIMULATE_ANSWER_EXAMPLE = {
  seed: 'replay-42',
  idFunnel: FUNNEL,
  funnelName: 'Spring sale',
  warnings: [],
  steps: [
    {
      step: { entrance: { idTrafficSource: SOURCE } },
      steps: [
        {
          idNode: ROOT,
          nodeName: 'Entrance',
          nodeType: 'root',
          hitId: 'H00000000001',
          decision: {
            kind: 'entrance',
            idTrafficSource: SOURCE,
            trafficSourceName: 'Push network',
            cost: '0.02',
            costFrom: 'trafficSource',
            incomingCostModifier: 100,
          },
        },
        {
          idNode: ROOT,
          nodeName: 'Entrance',
          nodeType: 'root',
          hitId: 'H00000000001',
          decision: { kind: 'weight', drawn: 0.4172, idConnection: 'C00000000001', share: 1, sticky: false },
        },
        {
          idNode: LANDERS,
          nodeName: 'Quiz landers',
          nodeType: 'landerGroup',
          hitId: 'H00000000002',
          decision: { kind: 'page', idPageGroup: 'GlAnDeRs0001', pageGroupName: 'Quiz', idPage: LANDER_PAGE, pageName: 'Quiz A', drawn: 0.73, share: 1 },
        },
      ],
      hits: [
        hit('H00000000001', ROOT, 'Entrance', 'root', { isEntrance: true, cost: '0.02' }),
        hit('H00000000002', LANDERS, 'Quiz landers', 'landerGroup', { idPage: LANDER_PAGE, pageName: 'Quiz A', previousHitId: 'H00000000001' }),
      ],
      url: 'https://lp.example.com/quiz?zone=4411&vid=Vx1s1t0r0001',
      destination: {
        type: 'page',
        idNode: LANDERS,
        nodeName: 'Quiz landers',
        idPage: LANDER_PAGE,
        pageName: 'Quiz A',
        pageType: 'lander',
        redirectType: '302',
        url: 'https://lp.example.com/quiz?zone=4411&vid=Vx1s1t0r0001',
      },
      session: session(LANDERS, LANDER_PAGE, 'H00000000002'),
      effects: [],
      warnings: [],
    },
    {
      step: { action: 1 },
      steps: [
        {
          idNode: OFFERS,
          nodeName: 'Sweeps offers',
          nodeType: 'offerGroup',
          hitId: 'H00000000003',
          decision: { kind: 'page', idPageGroup: 'GoFfErS00001', pageGroupName: 'Sweeps', idPage: OFFER_PAGE, pageName: 'Sweeps DE', drawn: 0.18, share: 1 },
        },
      ],
      hits: [
        hit('H00000000003', OFFERS, 'Sweeps offers', 'offerGroup', {
          idPage: OFFER_PAGE,
          pageName: 'Sweeps DE',
          idOfferSource: 'OsNeTw0rK001',
          offerSourceName: 'Network',
          action: 1,
          previousHitId: 'H00000000002',
        }),
      ],
      url: 'https://offers.example.com/go?click=H00000000003&vid=Vx1s1t0r0001',
      destination: {
        type: 'page',
        idNode: OFFERS,
        nodeName: 'Sweeps offers',
        idPage: OFFER_PAGE,
        pageName: 'Sweeps DE',
        pageType: 'offer',
        redirectType: '302',
        url: 'https://offers.example.com/go?click=H00000000003&vid=Vx1s1t0r0001',
      },
      session: session(OFFERS, OFFER_PAGE, 'H00000000003'),
      effects: [],
      warnings: [],
    },
  ],
};
