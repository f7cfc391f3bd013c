import {
  HIT_VISITOR_FIELDS,
  fromMicros,
  isCanonicalNonNegative,
  normalizeDecimal,
  timeMs,
  toMicros,
  type Hit,
  type HitMiddlewareCall,
  type HitVisitor,
} from '@funnel/reporting-domain';
import { CUSTOM_EVENT_NUMBERS, MIDDLEWARE_COLUMNS, TRACKING_SLOTS, VISITOR_COLUMNS, customEventColumn, trackingColumn } from './warehouse-schema';

/** A warehouse column's value as both stores write it (decimals as text, times as epoch ms). */
export type WarehouseValue = string | number | boolean | readonly string[] | readonly number[];

/** The columns of a hit (WAREHOUSE_COLUMNS' names), as both stores write them. */
export type WarehouseRow = Record<string, WarehouseValue>;

/** A hit's value of one warehouse column. */
export type HitColumnValue = (hit: Hit) => WarehouseValue;

/** The payout sum of a hit's conversions as decimal text. */
function revenueText(hit: Pick<Hit, 'conversions'>): string {
  if (hit.conversions.length === 0) return '0';
  // One conversion's payout, canonical as stored, is the sum.
  if (hit.conversions.length === 1 && isCanonicalNonNegative(hit.conversions[0].payout)) return hit.conversions[0].payout;
  let micros = 0n;
  for (const conversion of hit.conversions) micros += toMicros(conversion.payout);
  return fromMicros(micros);
}

/** The columns reporting updates change (conversions, cost, custom events, postbackCalled), read from a hit. */
const UPDATED_COLUMN_VALUES: Readonly<Record<string, HitColumnValue>> = {
  cost: (hit) => hit.cost,
  conversions: (hit) => (hit.conversions.length === 0 ? '[]' : JSON.stringify(hit.conversions)),
  conversion_count: (hit) => hit.conversions.length,
  revenue: revenueText,
  postback_called: (hit) => hit.postbackCalled,
  ...Object.fromEntries(CUSTOM_EVENT_NUMBERS.map((n) => [customEventColumn(n), (hit: Hit) => hit.customEvents[String(n)] ?? 0])),
};

/**
 * Each warehouse column (WAREHOUSE_COLUMNS' names) as read from a hit, as both stores write it.
 * Tracking fields, visitor attributes and custom events get one column each ("" / 0 when absent);
 * `conversions` stays the JSON list of the Hit record, with its count and payout sum beside it, so
 * the derived columns always agree with it. A store writing hits column by column reads them here
 * without building a row per hit.
 */
export const HIT_COLUMN_VALUES: Readonly<Record<string, HitColumnValue>> = {
  account_id: (hit) => hit.accountId,
  hit_id: (hit) => hit.hitId,
  visitor_id: (hit) => hit.visitorId,
  id_funnel: (hit) => hit.idFunnel,
  id_funnel_group: (hit) => hit.idFunnelGroup,
  id_traffic_source: (hit) => hit.idTrafficSource,
  id_node: (hit) => hit.idNode,
  id_page: (hit) => hit.idPage,
  node_type: (hit) => hit.nodeType,
  id_offer_source: (hit) => hit.idOfferSource,
  country_code: (hit) => hit.countryCode,
  ip: (hit) => hit.ip,
  ...Object.fromEntries(TRACKING_SLOTS.map((slot) => [trackingColumn(slot), (hit) => hit.trackingFields[slot] ?? ''])),
  time_ms: (hit) => timeMs(hit.time),
  is_entrance: (hit) => hit.isEntrance,
  action: (hit) => hit.action,
  previous_hit_id: (hit) => hit.previousHitId,
  ...Object.fromEntries(Object.entries(VISITOR_COLUMNS).map(([field, column]) => [column, (hit) => hit.visitor[field as keyof HitVisitor] ?? ''])),
  visitor_tags: (hit) => hit.visitorTags,
  ...UPDATED_COLUMN_VALUES,
  clicks: (hit) => hit.clicks,
  mw_config: (hit) => hit.middleware?.idMiddlewareConfig ?? '',
  mw_matched_route: (hit) => hit.middleware?.matchedRouteId ?? '',
  mw_default_reason: (hit) => hit.middleware?.defaultReason ?? '',
  mw_status: (hit) => hit.middleware?.status ?? 0,
  mw_latency_ms: (hit) => hit.middleware?.latencyMs ?? 0,
};

/** A hit as the warehouse's columns (see HIT_COLUMN_VALUES). */
export function warehouseRow(hit: Hit): WarehouseRow {
  const row: WarehouseRow = {};
  for (const column in HIT_COLUMN_VALUES) row[column] = HIT_COLUMN_VALUES[column](hit);
  return row;
}

/** The columns reporting updates change (conversions, cost, custom events, postbackCalled), as `warehouseRow` has them. */
export function updatedColumns(hit: Pick<Hit, 'conversions' | 'cost' | 'customEvents' | 'postbackCalled'>): WarehouseRow {
  const row: WarehouseRow = {};
  for (const column in UPDATED_COLUMN_VALUES) row[column] = UPDATED_COLUMN_VALUES[column](hit as Hit);
  return row;
}

/** The columns a hit is read back from (`cost` as decimal text, `time_ms` as a number or integer text). */
export const HIT_READ_COLUMNS: readonly string[] = [
  'account_id',
  'hit_id',
  'visitor_id',
  'id_funnel',
  'id_funnel_group',
  'id_traffic_source',
  'id_node',
  'id_page',
  'node_type',
  'id_offer_source',
  'country_code',
  'ip',
  ...TRACKING_SLOTS.map(trackingColumn),
  'time_ms',
  'is_entrance',
  'action',
  'previous_hit_id',
  ...Object.values(VISITOR_COLUMNS),
  'visitor_tags',
  'cost',
  'conversions',
  ...CUSTOM_EVENT_NUMBERS.map(customEventColumn),
  'postback_called',
  'clicks',
  ...MIDDLEWARE_COLUMNS,
];

/**
 * Reads a selected row (HIT_READ_COLUMNS) back into a hit. Numbers may come as integer text or bigints
 * (ClickHouse's JSON quotes 64-bit integers; DuckDB answers BIGINT as bigint), booleans as 0/1.
 * Tracking fields and custom events read back without their empty slots ("" and 0 are what a missing
 * one means).
 */
export function hitFromRow(row: Record<string, unknown>): Hit {
  const text = (column: string) => String(row[column] ?? '');
  const trackingFields: Record<string, string> = {};
  for (const slot of TRACKING_SLOTS) if (text(trackingColumn(slot)) !== '') trackingFields[slot] = text(trackingColumn(slot));
  const customEvents: Record<string, number> = {};
  for (const n of CUSTOM_EVENT_NUMBERS) if (Number(row[customEventColumn(n)]) > 0) customEvents[String(n)] = Number(row[customEventColumn(n)]);
  const visitor = Object.fromEntries(HIT_VISITOR_FIELDS.map((field) => [field, text(VISITOR_COLUMNS[field])])) as HitVisitor;
  return {
    hitId: text('hit_id'),
    visitorId: text('visitor_id'),
    accountId: text('account_id'),
    idFunnel: text('id_funnel'),
    idFunnelGroup: text('id_funnel_group'),
    idTrafficSource: text('id_traffic_source'),
    idNode: text('id_node'),
    idPage: text('id_page'),
    countryCode: text('country_code'),
    ip: text('ip'),
    trackingFields,
    time: new Date(Number(row['time_ms'])).toISOString(),
    isEntrance: truthy(row['is_entrance']),
    cost: normalizeDecimal(text('cost')),
    conversions: JSON.parse(text('conversions') || '[]'),
    customEvents,
    postbackCalled: truthy(row['postback_called']),
    nodeType: text('node_type'),
    idOfferSource: text('id_offer_source'),
    action: Number(row['action'] ?? 0),
    previousHitId: text('previous_hit_id'),
    visitor,
    visitorTags: [...((row['visitor_tags'] as string[] | undefined) ?? [])],
    clicks: Number(row['clicks'] ?? 0),
    // Only a middleware node's hit has a call (read back as it was written).
    ...(text('mw_config') !== ''
      ? {
          middleware: {
            idMiddlewareConfig: text('mw_config'),
            matchedRouteId: text('mw_matched_route'),
            defaultReason: text('mw_default_reason') as HitMiddlewareCall['defaultReason'],
            status: Number(row['mw_status'] ?? 0),
            latencyMs: Number(row['mw_latency_ms'] ?? 0),
          },
        }
      : {}),
  };
}

function truthy(value: unknown): boolean {
  return value === true || Number(value) === 1;
}

/** A click is counted on the previous hit when the action hit comes at most this long after it. */
export const CLICK_WINDOW_MS = 48 * 3600 * 1000;

/**
 * Whether `hit` counts as a click of a previous hit at `previousTimeMs` (an action taken from it,
 * within CLICK_WINDOW_MS after it); `at` is the hit's own time (epoch ms) when known.
 */
export function countsAsClick(hit: Hit, previousTimeMs: number, at = timeMs(hit.time)): boolean {
  return hit.action > 0 && hit.previousHitId !== '' && previousTimeMs <= at && at - previousTimeMs <= CLICK_WINDOW_MS;
}
