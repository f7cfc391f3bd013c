import { MICROS_PER_UNIT, isCanonicalNonNegative, normalizeDecimal, toMicros } from './decimal';
import type { Hit, HitConversion } from './hit';

/** The payout that removes every conversion of a hit. */
export const REMOVE_CONVERSIONS_PAYOUT = '-1';

/** One row of a conversions update (the reference API's ConvertedHit), already validated. */
export interface ConvertedHit {
  hitId: string;
  /** Decimal text >= 0, or `-1` to remove the hit's conversions. */
  payout: string;
  /** 0..256 characters; default "". */
  transactionId?: string;
  /** ISO 8601; default: now. */
  time?: string;
}

export interface ConversionSettings {
  /** Replaces every row's payout (rows with payout -1 still remove); null: each row's own. */
  overridePayout: string | null;
  /** The instant used for rows without a time. */
  now: Date;
}

/** What a row did to the hit (`H`: a Hit, or any record with its conversions). */
export type ConversionResult<H extends Pick<Hit, 'conversions'> = Hit> =
  | { outcome: 'applied'; kind: 'added' | 'replaced'; hit: H; conversion: HitConversion }
  | { outcome: 'applied'; kind: 'removed'; hit: H; removed: number }
  | { outcome: 'noop'; hit: H };

/**
 * Applies one converted-hit row to `hit`: payout -1 removes all the hit's conversions (a noop when
 * it has none); otherwise a transaction id the hit does not have yet adds a conversion, one it has
 * replaces that conversion (a noop when payout and time are the same). `overridePayout` replaces the
 * row's payout; a row without a time gets `now`.
 */
export function applyConversion<H extends Pick<Hit, 'conversions'>>(hit: H, row: ConvertedHit, settings: ConversionSettings): ConversionResult<H> {
  // A canonical payout >= 0 (what rows mostly carry) is neither -1 nor negative: no decimal arithmetic.
  if (!isCanonicalNonNegative(row.payout) && toMicros(row.payout) === -MICROS_PER_UNIT) {
    if (hit.conversions.length === 0) return { outcome: 'noop', hit };
    return { outcome: 'applied', kind: 'removed', removed: hit.conversions.length, hit: { ...hit, conversions: [] } };
  }
  const payout = normalizeDecimal(settings.overridePayout ?? row.payout);
  if (payout.startsWith('-')) throw new RangeError(`a payout is >= 0 or -1: ${row.payout}`);
  const conversion: HitConversion = {
    transactionId: row.transactionId ?? '',
    payout,
    time: row.time !== undefined ? new Date(Date.parse(row.time)).toISOString() : isoOf(settings.now),
  };
  const index = hit.conversions.findIndex((existing) => existing.transactionId === conversion.transactionId);
  if (index < 0) return { outcome: 'applied', kind: 'added', conversion, hit: { ...hit, conversions: [...hit.conversions, conversion] } };
  const existing = hit.conversions[index];
  if (existing.payout === conversion.payout && existing.time === conversion.time) return { outcome: 'noop', hit };
  const conversions = [...hit.conversions];
  conversions[index] = conversion;
  return { outcome: 'applied', kind: 'replaced', conversion, hit: { ...hit, conversions } };
}

/** The last instant `isoOf` wrote, and its text: a job's rows without a time all take the same `now`. */
let lastInstant = { ms: Number.NaN, iso: '' };

/** `date` as ISO 8601 text (the text of the instant written last is kept, not rebuilt). */
function isoOf(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastInstant.ms) lastInstant = { ms, iso: date.toISOString() };
  return lastInstant.iso;
}

/** The hit's revenue: the sum of its conversions' payouts, in micro-units. */
export function hitRevenueMicros(hit: Pick<Hit, 'conversions'>): bigint {
  return hit.conversions.reduce((sum, conversion) => sum + toMicros(conversion.payout), 0n);
}
