import { int, type Config } from '@funnel/platform';

/** reporting-service's settings of the streams HITS_BATCHES and HITS (distributed mode only: it creates and consumes them). */
export const hitsStreamConfig = {
  /** Hits not yet stored in the warehouse are dropped from the stream after this many hours (the longest reporting may be down). */
  HITS_MAX_AGE_HOURS: int({ min: 1, max: 24 * 365, default: 24 * 7 }),
  /** The stream's size bound in bytes (0: only the server's storage); when full, the edge's publishes are refused, no stored hit is dropped. */
  HITS_MAX_BYTES: int({ min: 0, default: 0 }),
  /** A hit published again within this window (the edge retrying) is stored once in the stream; the warehouse dedupes beyond. */
  HITS_DUPLICATE_WINDOW_MS: int({ min: 1000, max: 24 * 3600_000, default: 120_000 }),
  /** Hits ingested into the warehouse per write at most... */
  HITS_INGEST_BATCH_MAX: int({ min: 1, max: 50_000, default: 5000 }),
  /** ...or those received within this many ms of the batch's first one. */
  HITS_INGEST_WAIT_MS: int({ min: 1, max: 60_000, default: 100 }),
};

export type HitsStreamConfig = Config<typeof hitsStreamConfig>;
