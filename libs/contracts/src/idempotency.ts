/**
 * How long an `Idempotency-Key` stands for its first request, on every route that takes one
 * (billing mutations, reporting updates): within it a retry gets the first answer again; after it
 * the key starts a new request.
 */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 3600 * 1000;
