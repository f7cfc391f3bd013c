import { normalizeDecimal } from '@funnel/reporting-domain';
import { UPDATED_FIELDS, type HitState, type StateRead, type UpdatedField } from './hit-store';
import { CUSTOM_EVENT_NUMBERS, TRACKING_SLOTS, customEventColumn, trackingColumn } from './warehouse-schema';

/**
 * The columns a hit state is read from, as both stores select them: `tracking_fields` and
 * `custom_events` are maps (JSON objects) of the hit's non-empty tracking-field slots and non-zero
 * event counts, built by the engine from their columns, so a read carries 2 values instead of 32.
 */
export const HIT_STATE_COLUMNS = [
  'account_id',
  'hit_id',
  'time_ms',
  'id_funnel',
  'id_traffic_source',
  'tracking_fields',
  'cost',
  'conversions',
  'custom_events',
  'postback_called',
] as const;

/** [slot, column] of each tracking field, and [event number as text, column] of each custom event: what the engines' maps are built from. */
export const TRACKING_FIELD_ENTRIES: readonly [string, string][] = TRACKING_SLOTS.map((slot) => [slot, trackingColumn(slot)]);
export const CUSTOM_EVENT_ENTRIES: readonly [string, string][] = CUSTOM_EVENT_NUMBERS.map((n) => [String(n), customEventColumn(n)]);

/** TRACKING_FIELD_ENTRIES of the slots among `slots` (unknown names left out), in slot order; absent: all of them. */
export function trackingFieldEntries(slots?: readonly string[]): readonly [string, string][] {
  if (slots === undefined) return TRACKING_FIELD_ENTRIES;
  const wanted = new Set(slots);
  return TRACKING_FIELD_ENTRIES.filter(([slot]) => wanted.has(slot));
}

/** A read's parts (see StateRead): the tracking-field entries and the updated fields it names. */
export interface StateReadParts {
  trackingEntries: readonly [string, string][];
  fields: ReadonlySet<UpdatedField>;
}

/** A cache of the SELECT lists of hit states by what a read names (`select` builds one from its parts). */
export function hitStateSelects(select: (parts: StateReadParts) => string): (read?: StateRead) => string {
  const selects = new Map<string, string>();
  return (read) => {
    const trackingEntries = trackingFieldEntries(read?.trackingSlots);
    const fields = new Set(read?.fields ?? UPDATED_FIELDS);
    const key = `${read?.trackingSlots === undefined ? '*' : trackingEntries.map(([slot]) => slot).join(',')}/${[...fields].sort().join(',')}`;
    let sql = selects.get(key);
    if (sql === undefined) {
      sql = select({ trackingEntries, fields });
      selects.set(key, sql);
    }
    return sql;
  };
}

/**
 * Reads a selected row (HIT_STATE_COLUMNS, or those a StateRead names: a column not selected reads as
 * its empty value) back into a hit state. Numbers may come as integer text or
 * bigints, booleans as 0/1, `cost` as decimal text (ClickHouse may keep trailing zeros).
 */
export function hitStateFromRow(row: Record<string, unknown>): HitState {
  const customEvents: Record<string, number> = {};
  for (const [n, count] of Object.entries((row['custom_events'] as Record<string, unknown> | undefined) ?? {})) customEvents[n] = Number(count);
  return {
    accountId: String(row['account_id']),
    hitId: String(row['hit_id']),
    time: new Date(Number(row['time_ms'])).toISOString(),
    idFunnel: String(row['id_funnel'] ?? ''),
    idTrafficSource: String(row['id_traffic_source'] ?? ''),
    trackingFields: { ...((row['tracking_fields'] as Record<string, string> | undefined) ?? {}) },
    cost: row['cost'] === undefined || row['cost'] === null ? '0' : normalizeDecimal(String(row['cost'])),
    conversions: JSON.parse(String(row['conversions'] || '[]')),
    customEvents,
    postbackCalled: row['postback_called'] === true || Number(row['postback_called']) === 1,
  };
}
