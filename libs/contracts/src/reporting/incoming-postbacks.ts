// Incoming postbacks (issue 23): a network's `GET /pb/?hit=&tx=&rev=` on a tracking domain, and the
// edge's own conversions (an `isConversion` action), handed by the tracking edge to reporting on an
// internal subject, queued as one-row conversions jobs and logged (POST /reporting/logs/incomingpostbacks).

/** Where a conversion came from: a network's postback on `/pb/`, or an `isConversion` action of the edge. */
export const INCOMING_POSTBACK_SOURCES = ['postback', 'action'] as const;
export type IncomingPostbackSource = (typeof INCOMING_POSTBACK_SOURCES)[number];

/**
 * What became of a postback:
 * - `queued`: accepted (its conversions job is on the queue, not applied yet);
 * - `applied`: a conversion added or replaced; `removed`: `rev=-1` removed the hit's conversions;
 * - `duplicate`: nothing changed (the same transaction with the same revenue, or a removal of nothing);
 * - `unknownHit`: the account has no such hit (never recorded, removed, or another account's);
 * - `invalid`: the hit id, transaction id or revenue is not one this service takes (nothing queued);
 * - `failed`: the job could not be applied (every attempt failed).
 */
export const INCOMING_POSTBACK_OUTCOMES = ['queued', 'applied', 'removed', 'duplicate', 'unknownHit', 'invalid', 'failed'] as const;
export type IncomingPostbackOutcome = (typeof INCOMING_POSTBACK_OUTCOMES)[number];

/** Bounds of what the edge hands over (longer values are cut; the log shows them cut). */
export const INCOMING_POSTBACK_LIMITS = {
  /** Hit id, as given (valid ones are 12..64 characters). */
  hitMax: 64,
  /** A conversion's transaction id (as the conversions update). */
  transactionMax: 256,
  /** Revenue text, as given. */
  revenueMax: 32,
  /** The reason of an `invalid` or `failed` outcome. */
  reasonMax: 512,
} as const;

/** `reporting.internal.postback` (the tracking edge only): one postback, as the edge received it. */
export interface IncomingPostback {
  /** The account of the tracking domain it was received on. */
  accountId: string;
  source: IncomingPostbackSource;
  /** As given (cut to `hitMax`); "" when absent. */
  hitId: string;
  /** As given (cut to `transactionMax` + 1, so an over-long one is refused); "" when absent. */
  transactionId: string;
  /** As given: a decimal >= 0, `-1`, or absent (undefined or ""): the offer's payout. */
  revenue?: string;
  /** The client address (behind TRUSTED_PROXIES), "" when unknown. */
  ip: string;
  /** When the edge received it (RFC 3339). */
  receivedAt: string;
}

/** The answer of `reporting.internal.postback`: once it is durable (queued and logged). */
export interface IncomingPostbackAccepted {
  postbackId: string;
  outcome: IncomingPostbackOutcome;
  /** The conversions job, or null when nothing was queued (`invalid`, `unknownHit`). */
  jobId: string | null;
}

/** POST /reporting/logs/incomingpostbacks */
export interface IncomingPostbackLogRequest {
  timeStart: string;
  timeEnd: string;
  outcomes?: IncomingPostbackOutcome[];
  sources?: IncomingPostbackSource[];
  trafficSourceIds?: string[];
  funnelIds?: string[];
  hitIds?: string[];
  paging?: { start?: number; length?: number };
}

export interface IncomingPostbackLogRow {
  /** When the edge received it. */
  time: string;
  postbackId: string;
  source: IncomingPostbackSource;
  hitId: string;
  transactionId: string;
  /** As given ("" when absent: the offer's payout was used). */
  revenue: string;
  /** The payout the conversion was queued with ("" when nothing was queued). */
  payout: string;
  ip: string;
  outcome: IncomingPostbackOutcome;
  /** Why an `invalid` or `failed` postback was not applied, else null. */
  reason: string | null;
  jobId: string | null;
  /** The hit's funnel and traffic source, once the hit is known ("" before). */
  idFunnel: string;
  idTrafficSource: string;
  /** When the outcome was last set. */
  updatedAt: string;
}

export interface IncomingPostbackLogReport {
  rows: IncomingPostbackLogRow[];
  rowsReturned: number;
  rowsTotal: number;
}
