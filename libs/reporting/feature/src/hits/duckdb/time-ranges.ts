import type { DuckDBValue } from '@duckdb/node-api';

/** A gap at least this long between the times of the hits a statement names splits its time filter (see `timeRanges`). */
export const RANGE_GAP_MS = 3_600_000;
/** The most time spans one statement's filter names. */
export const MAX_RANGES = 16;

/**
 * The time spans ([first, last], epoch ms) covering `times`, in order: one span, split at each gap
 * of `gapMs` or more between two consecutive times (the `maxRanges` - 1 longest such gaps when
 * there are more). A statement bounded by these spans (an OR of ranges, which DuckDB evaluates in
 * the scan and checks against each row group's min/max) reads only the row groups of each span:
 * a job of today's hits naming one hit of last month reads today's row groups and that one, not
 * the month between. Times without such a gap give one span, the statement's single BETWEEN.
 */
export function timeRanges(times: Iterable<number>, gapMs = RANGE_GAP_MS, maxRanges = MAX_RANGES): [number, number][] {
  const sorted = Float64Array.from(times).sort();
  if (sorted.length === 0) return [];
  let cuts: number[] = [];
  for (let i = 0; i + 1 < sorted.length; i++) if (sorted[i + 1] - sorted[i] >= gapMs) cuts.push(i);
  if (cuts.length > maxRanges - 1) {
    const gap = (cut: number) => sorted[cut + 1] - sorted[cut];
    cuts = cuts
      .sort((a, b) => gap(b) - gap(a) || a - b)
      .slice(0, maxRanges - 1)
      .sort((a, b) => a - b);
  }
  const ranges: [number, number][] = [];
  let start = 0;
  for (const cut of cuts) {
    ranges.push([sorted[start], sorted[cut]]);
    start = cut + 1;
  }
  ranges.push([sorted[start], sorted[sorted.length - 1]]);
  return ranges;
}

/** `column` within one of `ranges` (from `timeRanges`, at least one), as SQL with positional parameters from `$firstParam` on. */
export function timeRangesSql(column: string, ranges: readonly [number, number][], firstParam: number): { sql: string; params: DuckDBValue[] } {
  const params: DuckDBValue[] = [];
  const terms = ranges.map(([first, last]) => {
    params.push(BigInt(first), BigInt(last));
    return `${column} BETWEEN $${firstParam + params.length - 2} AND $${firstParam + params.length - 1}`;
  });
  return { sql: terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`, params };
}
