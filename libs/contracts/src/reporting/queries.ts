// The reporting queries' contract (issue 20): what the gateway forwards and the reporting service
// answers. Names follow the reference API's reporting model (see docs/reporting-queries.md): request
// fields `groupings[{ groupBy, whitelistFilters, blacklistFilters }]`, `topLevelFilters`,
// `columnFilters.filterColumns`, `sorting.sortingColumns`, `paging { start, length }`, `options`;
// report `columns`, `rows[{ rowId, parentRowId, cells[{ formatted, raw }], children }]`, `totals`,
// `rowsReturned`, `rowsTotal`.

/** Subjects of the reporting queries (queue group `reporting`; permission `reporting:read`). */
export const ReportingQuerySubjects = {
  /** GET /reporting/attributes */
  attributes: 'reporting.query.attributes',
  /** POST /reporting/drilldown */
  drilldown: 'reporting.query.drilldown',
  /** POST /reporting/rawevents */
  rawEvents: 'reporting.query.rawEvents',
  /** POST /reporting/explorer/visitor */
  explorerVisitor: 'reporting.query.explorerVisitor',
  /** POST /reporting/explorer/hit */
  explorerHit: 'reporting.query.explorerHit',
  /** POST /reporting/logs/postbacks */
  postbackLog: 'reporting.query.postbackLog',
  /** POST /reporting/logs/incomingpostbacks */
  incomingPostbackLog: 'reporting.query.incomingPostbackLog',
  /** POST /reporting/logs/middleware */
  middlewareLog: 'reporting.query.middlewareLog',
} as const;

/** Error codes of the reporting queries (besides `REQUEST.VALIDATION` for a bad body). */
export const ReportingQueryErrorCodes = {
  /** The query ran past its time limit; nothing is held. 503. */
  QUERY_TIMEOUT: 'REPORTING.QUERY_TIMEOUT',
  /** An attribute, metric or field name the catalogue does not have (400, names the nearest valid one). */
  UNKNOWN_NAME: 'REPORTING.UNKNOWN_NAME',
  /** Explorer: no hit with that id in the caller's account. 404. */
  HIT_NOT_FOUND: 'REPORTING.HIT_NOT_FOUND',
  /** Explorer: the visitor has no hit in the caller's account in the window. 404. */
  VISITOR_NOT_FOUND: 'REPORTING.VISITOR_NOT_FOUND',
} as const;

/** Bounds of every query. */
export const REPORTING_QUERY_LIMITS = {
  maxWindowDays: 366,
  maxGroupings: 5,
  maxFilterValues: 1000,
  /** Drilldown rows per answer (`paging.length`). */
  maxPageLength: 10_000,
  defaultPageLength: 50,
  /** Raw events per page. */
  maxRawEvents: 1000,
  defaultRawEvents: 100,
  /** Explorer: hits of a visitor per answer. */
  maxVisitorHits: 1000,
  /** Postback log rows per page. */
  maxPostbackRows: 1000,
  /** The longest a query may run (REPORTING_QUERY_TIMEOUT_MS at most). */
  maxQueryTimeoutMs: 25_000,
  /** How long the gateway waits for a report: past the longest query, so the service's own 503 answers first. */
  gatewayWaitMs: 30_000,
} as const;

// ---- attributes ---------------------------------------------------------------------------------

export type AttributeType = 'asset' | 'text' | 'number' | 'time';

/** GET /reporting/attributes[?idTrafficSource=]: every grouping attribute and every metric. */
export interface AttributeCatalogue {
  attributes: AttributeInfo[];
  metrics: MetricInfo[];
}

export interface AttributeInfo {
  /** Stable key (`funnel`, `country`, `c1`, ...); requests take the key or the label. */
  key: string;
  /** The reference API's name ("Element: Funnel", "Location: Country", ...). */
  label: string;
  type: AttributeType;
  canGroupBy: boolean;
  canFilter: boolean;
}

export interface MetricInfo {
  /** Stable key (`entrances`, `roi`, ...); requests take the key or the label. */
  key: string;
  /** The reference API's name ("Entrances", "ROI", ...). */
  label: string;
  /** `count`, `money`, `ratio`. */
  type: 'count' | 'money' | 'ratio';
  /** How it is computed, e.g. "(Revenue - Cost) / Cost"; N/A when a divisor is 0. */
  formula: string;
}

// ---- drilldown ----------------------------------------------------------------------------------

export interface ReportGrouping {
  /** An attribute key or label. */
  groupBy: string;
  /** Keep hits matching at least one (asset ids for asset attributes; case-insensitive text with `*` wildcards otherwise). */
  whitelistFilters?: string[];
  /** Drop hits matching any. */
  blacklistFilters?: string[];
}

/** Pins one level of a tree: the hits whose `groupBy` value is the parent row's `raw` (null: N/A). */
export interface TopLevelFilter {
  groupBy: string;
  whitelistFilters: (string | null)[];
}

export interface ColumnFilter {
  /** A metric key or label. */
  columnName: string;
  /** `<`, `<=`, `>` or `>=` and a number, e.g. `">= 10"`. */
  filter: string;
}

export interface SortingColumn {
  /** A metric or grouping key or label. */
  columnName: string;
  order: 'asc' | 'desc';
}

export type TimeAttribution = 'entrance' | 'event';
export type ViewType = 'flat' | 'tree';

export interface DrilldownRequest {
  /** RFC 3339, inclusive. */
  timeStart: string;
  /** RFC 3339, exclusive; at most 366 days after timeStart. */
  timeEnd: string;
  /** IANA zone for time groupings (default `UTC`). */
  timeZone?: string;
  /** 1..5 groupings. */
  groupings: ReportGrouping[];
  topLevelFilters?: TopLevelFilter[];
  columnFilters?: { filterColumns: ColumnFilter[] };
  sorting?: { sortingColumns: SortingColumn[] };
  paging?: { start?: number; length?: number };
  options?: { viewType?: ViewType; timeAttribution?: TimeAttribution; showArchivedAssets?: boolean };
  /** Metric keys or labels; absent or empty: all, in catalogue order. */
  metrics?: string[];
}

export interface ReportColumn {
  /** The label ("Element: Funnel", "Entrances"). */
  name: string;
  key: string;
  type: 'grouping' | 'metric';
  description: string;
}

export interface ReportCell {
  /** As shown: an asset's name, a rounded number, `N/A`. */
  formatted: string;
  /** The value: an asset id, a text, a number; null for N/A. */
  raw: string | number | null;
}

export interface ReportRow {
  /** The row's path: its grouping cells' raw values from the top level down. */
  rowId: string;
  /** The parent row's id (tree), or null (top level, flat rows, totals). */
  parentRowId: string | null;
  cells: ReportCell[];
  children: ReportRow[];
}

export interface DrilldownReport {
  columns: ReportColumn[];
  rows: ReportRow[];
  totals: ReportRow;
  rowsReturned: number;
  /** Rows without paging (exact). */
  rowsTotal: number;
}

// ---- raw events, explorer, postback log ----------------------------------------------------------

export interface RawEventsRequest {
  timeStart: string;
  timeEnd: string;
  /** The drilldown's grouping filters, without grouping (`groupBy` names the attribute filtered). */
  filters?: ReportGrouping[];
  /** From the previous page's `nextCursor`. */
  cursor?: string;
  /** 1..1000 (default 100). */
  limit?: number;
}

/** Hits newest first (time, then hitId, descending); `nextCursor` null on the last page. */
export interface RawEventsReport<THit = unknown> {
  hits: THit[];
  nextCursor: string | null;
}

export type ExplorerVisitorRequest = { visitorId: string; timeStart: string; timeEnd: string } | { hitId: string };

export interface ExplorerVisitorReport<THit = unknown> {
  /** From the visitor's first entrance hit in the window (or its first hit). */
  visitor: {
    visitorId: string;
    firstSeen: string;
    lastSeen: string;
    entranceHitId: string | null;
    idTrafficSource: string;
    idFunnel: string;
    countryCode: string;
    ip: string;
    trackingFields: Record<string, string>;
    visitor: Record<string, string>;
    visitorTags: string[];
    hits: number;
    conversions: number;
    revenue: string;
    cost: string;
  };
  /** In time order, with their conversions and custom events. */
  hits: THit[];
  hasMore: boolean;
}

export interface ExplorerHitRequest {
  hitId: string;
}

export type PostbackStatus = 'pending' | 'delivered' | 'failed' | 'recorded';

/** Why a middleware node took its default route (as the hit records it). */
export const MIDDLEWARE_LOG_REASONS = ['noMatch', 'timeout', 'failure', 'overloaded', 'unconnected'] as const;
export type MiddlewareLogReason = (typeof MIDDLEWARE_LOG_REASONS)[number];

/** POST /reporting/logs/middleware: the middleware asset summary of a window. */
export interface MiddlewareLogRequest {
  timeStart: string;
  timeEnd: string;
  middlewareConfigIds?: string[];
  funnelIds?: string[];
  nodeIds?: string[];
  /** Calls that took the default for one of these reasons only. */
  defaultReasons?: MiddlewareLogReason[];
  paging?: { start?: number; length?: number };
}

/** One middleware config on one funnel node: its calls in the window. */
export interface MiddlewareLogSummaryRow {
  idMiddlewareConfig: string;
  idFunnel: string;
  idNode: string;
  calls: number;
  /** Calls whose answer matched a route that was followed. */
  matched: number;
  /** Calls by the route their answer matched (the followed ones). */
  routes: { matchedRouteID: string; calls: number }[];
  /** Calls that took the default route, by reason. */
  defaults: Record<MiddlewareLogReason, number>;
  timeouts: number;
  averageLatencyMs: number;
}

export interface MiddlewareLogCallRow {
  time: string;
  hitId: string;
  visitorId: string;
  idMiddlewareConfig: string;
  idFunnel: string;
  idNode: string;
  /** The route the answer matched ("" when none). */
  matchedRouteID: string;
  defaultTaken: boolean;
  /** Why the default was taken (null when it was not). */
  defaultReason: MiddlewareLogReason | null;
  /** The answer's status (null when no answer came). */
  status: number | null;
  latencyMs: number;
}

export interface MiddlewareLogReport {
  summary: MiddlewareLogSummaryRow[];
  rows: MiddlewareLogCallRow[];
  rowsReturned: number;
  rowsTotal: number;
}

export interface PostbackLogRequest {
  timeStart: string;
  timeEnd: string;
  trafficSourceIds?: string[];
  funnelIds?: string[];
  statuses?: PostbackStatus[];
  paging?: { start?: number; length?: number };
}

export interface PostbackLogRow {
  /** When the postback was decided (the conversion applied). */
  time: string;
  jobId: string;
  rowIndex: number;
  hitId: string;
  idTrafficSource: string;
  idFunnel: string;
  /** Secrets masked as on GET /reporting/postbacks. */
  url: string;
  kind: 'postbackUrl' | 'pixelUrl' | 'javascript';
  status: PostbackStatus;
  attempts: number;
  lastError: string | null;
  updatedAt: string;
}

export interface PostbackLogReport {
  rows: PostbackLogRow[];
  rowsReturned: number;
  rowsTotal: number;
}
