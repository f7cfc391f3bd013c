import { parseHits, type FieldError, type Hit } from '@funnel/reporting-domain';
import type { HitStore } from './hit-store';

/** The most invalid hits an ingest answer lists (the first ones by index); `invalidCount` counts them all. */
export const INGEST_INVALID_LISTED = 100;
/** The most errors listed for one invalid hit (the first ones found). */
export const INGEST_ERRORS_LISTED = 10;

/** A hit refused by ingest: its index in the input and (at most INGEST_ERRORS_LISTED of) its bad fields. */
export interface InvalidHit {
  index: number;
  errors: FieldError[];
}

/** The answer of `reporting.hits.ingest` (and of `ingestHits`). */
export interface IngestHitsResult {
  inserted: number;
  /** Valid hits whose hitId was already stored for their account. */
  ignored: number;
  /** The first INGEST_INVALID_LISTED hits refused, by their index in the input, with their bad fields. */
  invalid: InvalidHit[];
  /** All the hits refused (may exceed `invalid.length`). */
  invalidCount: number;
}

/** Hits stored per store write. */
const INGEST_BATCH = 10_000;

/**
 * Ingest (`reporting.hits.ingest`, `hits:import`): checks every hit with `parseHits`, stores the valid
 * ones (a hitId already stored for its account is ignored) and reports the others by index, at most
 * INGEST_INVALID_LISTED of them with at most INGEST_ERRORS_LISTED errors each, so the answer stays small.
 */
export async function ingestHits(store: HitStore, inputs: readonly unknown[]): Promise<IngestHitsResult> {
  const valid: Hit[] = [];
  const invalid: InvalidHit[] = [];
  let invalidCount = 0;
  parseHits(inputs).forEach((parsed, index) => {
    if (parsed.ok) valid.push(parsed.value);
    else if (++invalidCount <= INGEST_INVALID_LISTED) invalid.push({ index, errors: parsed.errors.slice(0, INGEST_ERRORS_LISTED) });
  });
  let inserted = 0;
  let ignored = 0;
  for (let start = 0; start < valid.length; start += INGEST_BATCH) {
    const result = await store.insertHits(valid.slice(start, start + INGEST_BATCH));
    inserted += result.inserted;
    ignored += result.ignored;
  }
  return { inserted, ignored, invalid, invalidCount };
}
