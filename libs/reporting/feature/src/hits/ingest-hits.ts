import { parseHit, type FieldError, type Hit } from '@funnel/reporting-domain';
import type { HitStore } from './hit-store';

export interface IngestHitsResult {
  inserted: number;
  /** Valid hits whose hitId was already stored for their account. */
  ignored: number;
  /** The hits refused, by their index in the input, with each bad field. */
  invalid: { index: number; errors: FieldError[] }[];
}

/** Hits stored per store write. */
const INGEST_BATCH = 10_000;

/**
 * Ingest (`reporting.hits.ingest`, `hits:import`): checks every hit with `parseHit`, stores the valid
 * ones (a hitId already stored for its account is ignored) and reports the others by index.
 */
export async function ingestHits(store: HitStore, inputs: readonly unknown[]): Promise<IngestHitsResult> {
  const valid: Hit[] = [];
  const invalid: IngestHitsResult['invalid'] = [];
  inputs.forEach((input, index) => {
    const parsed = parseHit(input);
    if (parsed.ok) valid.push(parsed.value);
    else invalid.push({ index, errors: parsed.errors });
  });
  let inserted = 0;
  let ignored = 0;
  for (let start = 0; start < valid.length; start += INGEST_BATCH) {
    const result = await store.insertHits(valid.slice(start, start + INGEST_BATCH));
    inserted += result.inserted;
    ignored += result.ignored;
  }
  return { inserted, ignored, invalid };
}
