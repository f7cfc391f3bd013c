import { int } from '@funnel/platform';

/** The snapshot's configuration rules, to add to the edge's (and standalone's) config spec. */
export const EDGE_SNAPSHOT_CONFIG = {
  /** Assets (and custom domains) per load request. */
  EDGE_SNAPSHOT_PAGE_SIZE: int({ min: 100, max: 5000, default: 1000 }),
  /** How often the custom domains are read again, ms (0: only at each load). */
  EDGE_DOMAINS_REFRESH_MS: int({ min: 0, max: 3_600_000, default: 10_000 }),
};
