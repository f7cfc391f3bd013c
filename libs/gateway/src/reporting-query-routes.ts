import {
  REPORTING_QUERY_LIMITS,
  ATTRIBUTE_CATALOGUE_SCHEMA,
  DRILLDOWN_REPORT_SCHEMA,
  DrilldownRequestDto,
  EXPLORER_HIT_SCHEMA,
  EXPLORER_VISITOR_SCHEMA,
  ExplorerHitRequestDto,
  ExplorerVisitorRequestDto,
  ID_PATTERN,
  POSTBACK_LOG_SCHEMA,
  INCOMING_POSTBACK_LOG_SCHEMA,
  INTEGRATION_DELIVERY_LOG_SCHEMA,
  INTEGRATION_DELIVERY_LOG_SUBJECT,
  IntegrationDeliveryLogRequestDto,
  IncomingPostbackLogRequestDto,
  PostbackLogRequestDto,
  WEBHOOK_LOG_SCHEMA,
  WEBHOOK_LOG_SUBJECT,
  WebhookLogRequestDto,
  MiddlewareLogRequestDto,
  MIDDLEWARE_LOG_SCHEMA,
  RAW_EVENTS_SCHEMA,
  REPORTING_QUERY_SCHEMAS,
  RawEventsRequestDto,
  ReportingQuerySubjects,
} from '@funnel/contracts';
import type { RouteDoc } from './docs/openapi/route-doc';
import { ForwardedRoute } from './route-table';

/**
 * Reporting queries, answered by the reporting service from the hit warehouse: permission
 * `reporting:read` (which `reporting:write` implies). Every query is scoped to the caller's account;
 * the service validates the body (the DTOs below) and the names of attributes and metrics.
 */
export function reportingQueryRoutes(): ForwardedRoute[] {
  const route = (method: ForwardedRoute['method'], path: string, subject: string, doc: RouteDoc): ForwardedRoute => ({
    method,
    path,
    subject,
    permission: 'reporting:read',
    reply: 'whole',
    // The reporting service stops a query at REPORTING_QUERY_TIMEOUT_MS (at most 25 s) and answers 503 itself.
    timeoutMs: REPORTING_QUERY_LIMITS.gatewayWaitMs,
    doc: { tag: 'reporting', schemas: REPORTING_QUERY_SCHEMAS, ...doc },
  });
  return [
    route('GET', '/reporting/attributes', ReportingQuerySubjects.attributes, {
      summary: 'List available attributes: every grouping attribute and every metric with its formula',
      query: [
        {
          name: 'idTrafficSource',
          schema: { type: 'string', pattern: ID_PATTERN.source },
          description: 'tracking-field attributes named as this traffic source names its slots (else by slot: campaign, external, c1..c20)',
        },
      ],
      answer: ATTRIBUTE_CATALOGUE_SCHEMA,
    }),
    route('POST', '/reporting/drilldown', ReportingQuerySubjects.drilldown, {
      summary: 'Create a drilldown report: 1..5 groupings over a window, metrics, filters, sorting, paging, flat or tree',
      description:
        'Rows group the hits of `[timeStart, timeEnd)` (at most 366 days) by the groupings; a `totals` row is always there and `rowsTotal` is exact. ' +
        'Hits without a value fall into an N/A row (raw null), so children plus N/A add up to their parent. A tree is expanded one level at a time ' +
        'by posting again with `topLevelFilters` naming the parent row. An unknown attribute or metric is a 400 `REPORTING.UNKNOWN_NAME` naming the nearest one; ' +
        'a query past its time limit is a 503 `REPORTING.QUERY_TIMEOUT`.',
      body: DrilldownRequestDto,
      answer: DRILLDOWN_REPORT_SCHEMA,
    }),
    route('POST', '/reporting/rawevents', ReportingQuerySubjects.rawEvents, {
      summary: 'Create a raw event report: the hits of a window, newest first, paged by cursor',
      description: "Post again with `cursor` set to the answer's `nextCursor` for the next page; `nextCursor` is null on the last page.",
      body: RawEventsRequestDto,
      answer: RAW_EVENTS_SCHEMA,
    }),
    route('POST', '/reporting/explorer/visitor', ReportingQuerySubjects.explorerVisitor, {
      summary: "Look up a visitor: the session summary and the visitor's hits in time order",
      description: 'By `{ visitorId, timeStart, timeEnd }`, or by `{ hitId }` (the visitor of that hit). `hasMore` when more than 1,000 hits match.',
      body: { oneOf: [ExplorerVisitorRequestDto, ExplorerHitRequestDto] },
      answer: EXPLORER_VISITOR_SCHEMA,
    }),
    route('POST', '/reporting/explorer/hit', ReportingQuerySubjects.explorerHit, {
      summary: 'Look up a single hit (404 `REPORTING.HIT_NOT_FOUND` when the account has none with that id)',
      body: ExplorerHitRequestDto,
      answer: EXPLORER_HIT_SCHEMA,
    }),
    route('POST', '/reporting/logs/postbacks', ReportingQuerySubjects.postbackLog, {
      summary: 'Get the postback log: outgoing postback deliveries in a window, newest first, filtered and paged',
      body: PostbackLogRequestDto,
      answer: POSTBACK_LOG_SCHEMA,
    }),
    route('POST', '/reporting/logs/webhooks', WEBHOOK_LOG_SUBJECT, {
      summary: 'Get the webhook asset summary: per webhook config and node, the delivery attempts of a window, with the attempts listed newest first, paged',
      description:
        'Summary per config and node: deliveries, successes, failures by HTTP status ("none": no answer), deliveries given up, attempts, retries, average and p95 latency; `rows` lists the attempts.',
      body: WebhookLogRequestDto,
      answer: WEBHOOK_LOG_SCHEMA,
    }),
    route('POST', '/reporting/logs/incomingpostbacks', ReportingQuerySubjects.incomingPostbackLog, {
      summary: 'Get the incoming postback log: postbacks received on the tracking domains in a window, newest first, filtered and paged',
      description:
        'Every `GET /pb/` (and every isConversion action of the edge) received in `[timeStart, timeEnd)` (at most 366 days), with its outcome: `queued` until its conversions job is applied, then `applied`, `removed`, `duplicate`, `unknownHit` or `failed`; `invalid` when nothing was queued. Filters: `outcomes`, `sources`, `trafficSourceIds`, `funnelIds`, `hitIds`; `paging { start, length <= 1000 }`.',
      body: IncomingPostbackLogRequestDto,
      answer: INCOMING_POSTBACK_LOG_SCHEMA,
    }),
    route('POST', '/reporting/logs/integrationdeliveries', INTEGRATION_DELIVERY_LOG_SUBJECT, {
      summary:
        'Get the integration deliveries log: what the ad-platform integrations pulled in (cost rows) and sent out (conversions) in a window, with the provider’s answer, newest first, filtered and paged',
      description:
        'One row per cost row pulled (`applied`: put into the reporting cost job `reportingJobId`) and per conversion sent (`accepted` or `rejected` by the provider), and `failed` rows where a call did not go through (a later attempt of the job logs its rows again). ' +
        'Filters: `integrationIds`, `kinds` (`cost`, `conversions`), `statuses`, `jobIds` (sync jobs, `GET /integrations/sync/{jobId}`); window at most 366 days; `paging { start, length <= 1000 }`.',
      body: IntegrationDeliveryLogRequestDto,
      answer: INTEGRATION_DELIVERY_LOG_SCHEMA,
    }),
    route('POST', '/reporting/logs/middleware', ReportingQuerySubjects.middlewareLog, {
      summary:
        'Get the middleware asset summary: per middleware config and funnel node, calls, routes matched, defaults taken by reason, timeouts and average latency in a window; with the calls listed (newest first, paged)',
      body: MiddlewareLogRequestDto,
      answer: MIDDLEWARE_LOG_SCHEMA,
    }),
  ];
}
