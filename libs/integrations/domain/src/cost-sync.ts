import { createHash } from 'node:crypto';
import type { CostUpdate } from '@funnel/contracts';
import type { CampaignDayCost, CostWindow } from './ad-platform';

/**
 * Cost sync, the pure part: spend days of an ad account's time zone as UTC windows, and the
 * reporting cost updates that put a day's spend on the hits of the linked traffic source whose
 * `campaign` tracking field is the platform's campaign id (the whole day's spend of a campaign
 * spread over its entrances of that day, as a `costForWholeSegment` segment).
 */

const DAY_MS = 86_400_000;
/** Segments per cost update at most (the cost route's own bound). */
export const COST_SEGMENTS_PER_UPDATE = 1000;
/** Every 3 hours the trailing 3 days are pulled again (platforms revise spend for several days). */
export const COST_SYNC_INTERVAL_MS = 3 * 3600_000;
export const COST_SYNC_TRAILING_DAYS = 3;

const partsFormats = new Map<string, Intl.DateTimeFormat>();

function formatOf(timezone: string): Intl.DateTimeFormat {
  let format = partsFormats.get(timezone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormats.set(timezone, format);
  }
  return format;
}

/** The wall clock of `ms` in `timezone`, as if it were UTC (ms). */
function wallClock(ms: number, timezone: string): number {
  const parts: Record<string, number> = {};
  for (const part of formatOf(timezone).formatToParts(new Date(ms))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
}

/** A time zone Intl knows (an ad account's zone name from the provider); else UTC. */
export function knownTimezone(timezone: string): string {
  try {
    formatOf(timezone);
    return timezone;
  } catch {
    return 'UTC';
  }
}

/** The day (`YYYY-MM-DD`) of instant `ms` in `timezone`. */
export function zoneDay(ms: number, timezone: string): string {
  return new Date(wallClock(ms, timezone)).toISOString().slice(0, 10);
}

/** The UTC instant at which `day` (`YYYY-MM-DD`) starts in `timezone` (DST-aware). */
export function zoneDayStart(day: string, timezone: string): number {
  const wall = Date.parse(`${day}T00:00:00Z`);
  let guess = wall - (wallClock(wall, timezone) - wall);
  // Once more at the guess: the offset there may differ (a DST change between UTC and local midnight).
  guess = wall - (wallClock(guess, timezone) - guess);
  return guess;
}

export function addDays(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The whole days of `timezone` that [timeStart, timeEnd) touches. */
export function costWindowOf(timeStart: string, timeEnd: string, timezone: string): CostWindow {
  const zone = knownTimezone(timezone);
  const start = Date.parse(timeStart);
  const end = Math.max(start, Date.parse(timeEnd) - 1);
  return { since: zoneDay(start, zone), until: zoneDay(end, zone), timezone: zone };
}

/** The trailing `days` days of `timezone` up to today there, as UTC [timeStart, timeEnd). */
export function trailingWindow(nowMs: number, days = COST_SYNC_TRAILING_DAYS): { timeStart: string; timeEnd: string } {
  // Wide enough for any zone: the days are cut per ad account's zone by costWindowOf.
  const today = new Date(nowMs).toISOString().slice(0, 10);
  return { timeStart: `${addDays(today, -(days - 1))}T00:00:00.000Z`, timeEnd: new Date(nowMs).toISOString() };
}

export interface DayCostUpdate {
  day: string;
  update: CostUpdate;
}

/** Decimal text of a spend (no exponent, at most 6 decimals, no trailing zeros). */
export function spendText(spend: number): string {
  if (!Number.isFinite(spend) || spend <= 0) return '0';
  return spend.toFixed(6).replace(/\.?0+$/, '');
}

/**
 * The reporting cost updates of pulled spend: one per day of the ad account's zone (its UTC
 * window), one segment per campaign (restricted to the `campaign` tracking field), at most
 * COST_SEGMENTS_PER_UPDATE segments each (a day with more campaigns takes several updates).
 */
export function costUpdatesOf(costs: readonly CampaignDayCost[], idTrafficSource: string, timezone: string): DayCostUpdate[] {
  const zone = knownTimezone(timezone);
  const byDay = new Map<string, Map<string, number>>();
  for (const row of costs) {
    const campaigns = byDay.get(row.day) ?? new Map<string, number>();
    campaigns.set(row.campaignId, (campaigns.get(row.campaignId) ?? 0) + (Number.isFinite(row.spend) ? row.spend : 0));
    byDay.set(row.day, campaigns);
  }
  const updates: DayCostUpdate[] = [];
  for (const day of [...byDay.keys()].sort()) {
    const timeStart = new Date(zoneDayStart(day, zone)).toISOString();
    const timeEnd = new Date(zoneDayStart(addDays(day, 1), zone)).toISOString();
    const segments = [...byDay.get(day)!.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([campaignId, spend]) => ({
        cost: spendText(spend),
        costType: 'costForWholeSegment' as const,
        restrictToCountryCode: '',
        restrictToTrackingFields: [{ key: 'campaign', value: campaignId }],
      }));
    for (let i = 0; i < segments.length; i += COST_SEGMENTS_PER_UPDATE) {
      updates.push({
        day,
        update: { funnelIDs: [], trafficSourceIDs: [idTrafficSource], timeStart, timeEnd, segments: segments.slice(i, i + COST_SEGMENTS_PER_UPDATE) },
      });
    }
  }
  return updates;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A 12-character id (the asset-id alphabet) derived from `parts`: the same parts give the same id, so a job queued twice is one job. */
export function derivedJobId(...parts: string[]): string {
  const digest = createHash('sha256').update(parts.join('\n')).digest();
  let id = '';
  for (let i = 0; i < 12; i++) id += BASE62[digest[i] % 62];
  return id;
}
