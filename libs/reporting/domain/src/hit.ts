/** One conversion of a hit: a transaction id (may be ""), its payout as a decimal string, and when it happened. */
export interface HitConversion {
  transactionId: string;
  payout: string;
  /** ISO 8601. */
  time: string;
}

/**
 * A hit of the tracking edge as the warehouse keeps it. Written by the edge (outside this service)
 * through `reporting.hits.ingest` or `npm run cli -- hits:import`; changed by reporting updates.
 */
export interface Hit {
  hitId: string;
  visitorId: string;
  accountId: string;
  idFunnel: string;
  idFunnelGroup: string;
  idTrafficSource: string;
  idNode: string;
  idPage: string;
  /** ISO 3166-1 alpha-2, upper case ("" when unknown). */
  countryCode: string;
  ip: string;
  /** Tracking-field slot -> value. */
  trackingFields: Record<string, string>;
  /** ISO 8601. */
  time: string;
  isEntrance: boolean;
  /** Decimal string >= 0. */
  cost: string;
  conversions: HitConversion[];
  /** Custom event number (1..10) -> count; absent numbers are 0. */
  customEvents: Record<string, number>;
  /** Whether the traffic source's postback was called for this hit. */
  postbackCalled: boolean;
}
