import type { Hit } from './hit';

/** One row of a custom events update (the reference API's CustomEventUploadHit), already validated. */
export interface CustomEventRow {
  hitId: string;
  /** 1..10. */
  eventNumber: number;
  /** Whole number >= 1; default 1. */
  count?: number;
  /** ISO 8601 (when the events happened; the warehouse keeps counts per hit); default: the job's `queuedAt`. */
  time?: string;
}

/** Adds the row's count (default 1) to the hit's count of event `eventNumber`. */
export function applyCustomEvent<H extends Pick<Hit, 'customEvents'>>(hit: H, row: CustomEventRow): H {
  if (!Number.isInteger(row.eventNumber) || row.eventNumber < 1 || row.eventNumber > 10) throw new RangeError(`an event number is 1..10: ${row.eventNumber}`);
  const count = row.count ?? 1;
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError(`a custom event count is a whole number >= 1: ${count}`);
  const key = String(row.eventNumber);
  return { ...hit, customEvents: { ...hit.customEvents, [key]: (hit.customEvents[key] ?? 0) + count } };
}
