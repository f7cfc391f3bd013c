import type { JsonSchema } from '../../assets/asset-kind';
import { SCHEMA_REF_PREFIX } from '../../assets/routing-keys';
import { MIDDLEWARE_LOG_REASONS } from '../queries';
import { POSTBACK_LOG_STATUSES } from './requests';
import { INCOMING_POSTBACK_OUTCOMES, INCOMING_POSTBACK_SOURCES } from '../incoming-postbacks';
import { STRING_SCHEMA as STRING, COUNT_SCHEMA as COUNT, TIME_SCHEMA as TIME, closedObjectSchema as object } from '../../json-schema-parts';

/* The reporting queries' answers as the API document shows them (the TypeScript shapes are in
 * ../queries.ts). `REPORTING_QUERY_SCHEMAS` are named components the answers refer to by `$ref`
 * (a report row nests its children). */

const BOOLEAN = { type: 'boolean' };
const STRING_MAP = { type: 'object', additionalProperties: STRING };
const ref = (name: string) => ({ $ref: `${SCHEMA_REF_PREFIX}${name}` });

const ROW = object(
  {
    rowId: { type: 'string', description: "the row's path: its grouping cells' raw values from the top level down" },
    parentRowId: { type: ['string', 'null'], description: "the parent row's id in a tree; null at the top level, in flat reports and for totals" },
    cells: {
      type: 'array',
      description: 'grouping cells first, then the metrics in request order (as `columns`)',
      items: object({
        formatted: { type: 'string', description: "as shown: an asset's name, a rounded number, `N/A`" },
        raw: { type: ['string', 'number', 'null'], description: 'the value: an asset id, a text, a number; null for N/A' },
      }),
    },
    children: { type: 'array', items: ref('ReportRow') },
  },
  [],
  'a drilldown row (ReportRow)',
);

const HIT = object(
  {
    hitId: STRING,
    visitorId: STRING,
    accountId: STRING,
    idFunnel: STRING,
    idFunnelGroup: STRING,
    idTrafficSource: STRING,
    idNode: STRING,
    idPage: STRING,
    countryCode: { type: 'string', description: 'ISO 3166-1 alpha-2 ("" when unknown)' },
    ip: STRING,
    trackingFields: { ...STRING_MAP, description: 'tracking-field slot (`campaign`, `external`, `c1`..`c20`) -> value' },
    time: TIME,
    isEntrance: BOOLEAN,
    cost: { type: 'string', description: 'a decimal >= 0' },
    conversions: { type: 'array', items: object({ transactionId: STRING, payout: { type: 'string', description: 'a decimal' }, time: TIME }) },
    customEvents: { type: 'object', additionalProperties: COUNT, description: 'custom event number (1..10) -> count' },
    postbackCalled: BOOLEAN,
    nodeType: STRING,
    idOfferSource: STRING,
    action: COUNT,
    previousHitId: STRING,
    visitor: { ...STRING_MAP, description: 'the visitor attributes the edge knew at this hit (device, location, connection ...)' },
    visitorTags: { type: 'array', items: STRING },
    clicks: COUNT,
  },
  ['accountId'],
  'a hit as the warehouse has it, with its conversions and custom events',
);

/** Named schemas the answers below refer to (`#/components/schemas/<name>`). */
export const REPORTING_QUERY_SCHEMAS: Readonly<Record<string, JsonSchema>> = Object.freeze({ ReportRow: ROW, ReportingHit: HIT });

/** GET /reporting/attributes/ (AttributeCatalogue). */
export const ATTRIBUTE_CATALOGUE_SCHEMA = object({
  attributes: {
    type: 'array',
    items: object({
      key: { type: 'string', description: 'stable key (`funnel`, `country`, `c1`); requests take the key or the label' },
      label: { type: 'string', description: 'the reference name ("Element: Funnel")' },
      type: { type: 'string', enum: ['asset', 'text', 'number', 'time'] },
      canGroupBy: BOOLEAN,
      canFilter: BOOLEAN,
    }),
  },
  metrics: {
    type: 'array',
    items: object({
      key: STRING,
      label: { type: 'string', description: 'the reference name ("Entrances", "ROI")' },
      type: { type: 'string', enum: ['count', 'money', 'ratio'] },
      formula: { type: 'string', description: 'how it is computed; N/A when a divisor is 0' },
    }),
  },
});

/** POST /reporting/drilldown/ (DrilldownReport). */
export const DRILLDOWN_REPORT_SCHEMA = object({
  columns: {
    type: 'array',
    items: object({ name: STRING, key: STRING, type: { type: 'string', enum: ['grouping', 'metric'] }, description: STRING }),
  },
  rows: { type: 'array', items: ref('ReportRow') },
  totals: ref('ReportRow'),
  rowsReturned: COUNT,
  rowsTotal: { ...COUNT, description: 'rows without paging (exact)' },
});

/** POST /reporting/rawevents/ (RawEventsReport): newest first. */
export const RAW_EVENTS_SCHEMA = object({
  hits: { type: 'array', items: ref('ReportingHit') },
  nextCursor: { type: ['string', 'null'], description: "the next page's `cursor`; null on the last page" },
});

/** POST /reporting/explorer/visitor/ (ExplorerVisitorReport). */
export const EXPLORER_VISITOR_SCHEMA = object({
  visitor: object(
    {
      visitorId: STRING,
      firstSeen: TIME,
      lastSeen: TIME,
      entranceHitId: { type: ['string', 'null'] },
      idTrafficSource: STRING,
      idFunnel: STRING,
      countryCode: STRING,
      ip: STRING,
      trackingFields: STRING_MAP,
      visitor: STRING_MAP,
      visitorTags: { type: 'array', items: STRING },
      hits: COUNT,
      conversions: COUNT,
      revenue: { type: 'string', description: 'a decimal' },
      cost: { type: 'string', description: 'a decimal' },
    },
    [],
    "the visitor's session summary, from its first entrance hit in the window (or its first hit)",
  ),
  hits: { type: 'array', items: ref('ReportingHit'), description: 'in time order' },
  hasMore: BOOLEAN,
});

/** POST /reporting/explorer/hit/: the hit. */
export const EXPLORER_HIT_SCHEMA = ref('ReportingHit');

/** POST /reporting/logs/postbacks/ (PostbackLogReport). */
export const POSTBACK_LOG_SCHEMA = object({
  rows: {
    type: 'array',
    items: object({
      time: { ...TIME, description: 'when the postback was decided (the conversion applied)' },
      jobId: STRING,
      rowIndex: COUNT,
      hitId: STRING,
      idTrafficSource: STRING,
      idFunnel: STRING,
      url: { type: 'string', description: 'secrets masked as on GET /reporting/postbacks' },
      kind: { type: 'string', enum: ['postbackUrl', 'pixelUrl', 'javascript'] },
      status: { type: 'string', enum: [...POSTBACK_LOG_STATUSES] },
      attempts: COUNT,
      lastError: { type: ['string', 'null'] },
      updatedAt: TIME,
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});

/** POST /reporting/logs/incomingpostbacks/ (IncomingPostbackLogReport). */
export const INCOMING_POSTBACK_LOG_SCHEMA = object({
  rows: {
    type: 'array',
    items: object({
      time: { ...TIME, description: 'when the tracking edge received it' },
      postbackId: STRING,
      source: { type: 'string', enum: [...INCOMING_POSTBACK_SOURCES], description: "`postback` (a network's /pb/ call) or `action` (an isConversion action)" },
      hitId: { type: 'string', description: 'as given' },
      transactionId: STRING,
      revenue: { type: 'string', description: 'as given; "" when absent (the offer payout was used)' },
      payout: { type: 'string', description: 'the payout queued; "" when nothing was queued' },
      ip: STRING,
      outcome: { type: 'string', enum: [...INCOMING_POSTBACK_OUTCOMES] },
      reason: { type: ['string', 'null'], description: 'why an invalid or failed postback was not applied' },
      jobId: { type: ['string', 'null'], description: 'the conversions job (GET /reporting/jobs/?jobId=)' },
      idFunnel: { type: 'string', description: 'the hit’s funnel, once the hit is known ("" before)' },
      idTrafficSource: { type: 'string', description: 'the hit’s traffic source, once the hit is known ("" before)' },
      updatedAt: { ...TIME, description: 'when the outcome was last set' },
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});

/** POST /reporting/logs/middleware/ (MiddlewareLogReport). */
export const MIDDLEWARE_LOG_SCHEMA = object({
  summary: {
    type: 'array',
    description: 'per middleware config and funnel node, by calls descending',
    items: object({
      idMiddlewareConfig: STRING,
      idFunnel: STRING,
      idNode: STRING,
      calls: COUNT,
      matched: { ...COUNT, description: 'calls whose matched route was followed' },
      routes: { type: 'array', items: object({ matchedRouteID: STRING, calls: COUNT }) },
      defaults: object(Object.fromEntries(MIDDLEWARE_LOG_REASONS.map((reason) => [reason, COUNT]))),
      timeouts: COUNT,
      averageLatencyMs: { type: 'number', minimum: 0 },
    }),
  },
  rows: {
    type: 'array',
    description: 'the calls, newest first (paged)',
    items: object({
      time: TIME,
      hitId: STRING,
      visitorId: STRING,
      idMiddlewareConfig: STRING,
      idFunnel: STRING,
      idNode: STRING,
      matchedRouteID: { type: 'string', description: '"" when no route matched' },
      defaultTaken: BOOLEAN,
      defaultReason: { type: ['string', 'null'], enum: [...MIDDLEWARE_LOG_REASONS, null] },
      status: { type: ['integer', 'null'], description: 'null when no answer came' },
      latencyMs: COUNT,
    }),
  },
  rowsReturned: COUNT,
  rowsTotal: COUNT,
});
