import { BillingErrorCodes, IDEMPOTENCY_KEY_TTL_MS, ServiceError, ServiceErrorShape } from '@funnel/contracts';

/** How long a completed request's answer is kept for its key. */
export const IDEMPOTENCY_TTL_MS = IDEMPOTENCY_KEY_TTL_MS;
/** A request started longer ago than this and never completed (its process died) no longer holds its key. */
export const IDEMPOTENCY_IN_FLIGHT_MS = 60 * 1000;

/** What a request with a key answered: its result, or the refusal it got. */
export type IdempotentOutcome = { ok: true; result: unknown } | { ok: false; error: ServiceErrorShape };

export interface IdempotentRequestStarted {
  type: 'IdempotentRequestStarted';
  data: { accountId: string; fingerprint: string; startedAt: number };
}
export interface IdempotentRequestCompleted {
  type: 'IdempotentRequestCompleted';
  data: { accountId: string; fingerprint: string; completedAt: number; outcome: IdempotentOutcome };
}
/** The request failed in a way worth retrying (the service or a provider was unavailable): the key is free again. */
export interface IdempotentRequestReleased {
  type: 'IdempotentRequestReleased';
  data: { accountId: string; releasedAt: number };
}
export type IdempotencyEvent = IdempotentRequestStarted | IdempotentRequestCompleted | IdempotentRequestReleased;

/** One stream per account and key (the key hashed): `billingidempotency-<accountId>.<sha256>`. */
export const IdempotencyStreams = {
  key: (accountId: string, keyDigest: string) => `billingidempotency-${accountId}.${keyDigest}`,
};

/** The key's last request: what it was (fingerprint of subject and body), when, and how it ended. */
export interface IdempotencyState {
  request?: { fingerprint: string; at: number; outcome?: IdempotentOutcome; released: boolean };
}

export function evolveIdempotency(state: IdempotencyState, event: IdempotencyEvent): IdempotencyState {
  switch (event.type) {
    case 'IdempotentRequestStarted':
      return { request: { fingerprint: event.data.fingerprint, at: event.data.startedAt, released: false } };
    case 'IdempotentRequestCompleted':
      return { request: { fingerprint: event.data.fingerprint, at: event.data.completedAt, outcome: event.data.outcome, released: false } };
    case 'IdempotentRequestReleased':
      return state.request ? { request: { ...state.request, released: true } } : state;
    default: {
      const unknown: never = event;
      throw new Error(`unknown event ${(unknown as { type: string }).type}`);
    }
  }
}

export function asIdempotencyEvent(type: string, data: Record<string, unknown>): IdempotencyEvent | undefined {
  return ['IdempotentRequestStarted', 'IdempotentRequestCompleted', 'IdempotentRequestReleased'].includes(type)
    ? ({ type, data } as IdempotencyEvent)
    : undefined;
}

export type IdempotencyDecision = { type: 'run' } | { type: 'replay'; outcome: IdempotentOutcome } | { type: 'refuse'; error: ServiceError };

/**
 * What to do with a request that carries a key (`now` in milliseconds): the same key with the same
 * request answers the first answer again for 24 h; with another request it is a 409
 * IDEMPOTENCY_KEY_REUSED; while the first is still under way, a 409 IDEMPOTENCY_KEY_IN_USE. A key
 * whose answer expired, whose request was released, or whose request was abandoned runs anew.
 */
export function decideIdempotentRequest(state: IdempotencyState, fingerprint: string, now: number): IdempotencyDecision {
  const request = state.request;
  if (!request || request.released) return { type: 'run' };
  if (request.outcome) {
    if (now - request.at >= IDEMPOTENCY_TTL_MS) return { type: 'run' };
    return request.fingerprint === fingerprint ? { type: 'replay', outcome: request.outcome } : { type: 'refuse', error: keyReused() };
  }
  if (now - request.at >= IDEMPOTENCY_IN_FLIGHT_MS) return { type: 'run' };
  if (request.fingerprint !== fingerprint) return { type: 'refuse', error: keyReused() };
  return {
    type: 'refuse',
    error: ServiceError.conflict(
      BillingErrorCodes.IDEMPOTENCY_KEY_IN_USE,
      'a request with this Idempotency-Key is still under way; retry once it has answered',
    ),
  };
}

function keyReused(): ServiceError {
  return ServiceError.conflict(BillingErrorCodes.IDEMPOTENCY_KEY_REUSED, 'this Idempotency-Key was used with another request; use a new key for a new request');
}

/** An Idempotency-Key: 1..255 printable ASCII characters. */
export function checkIdempotencyKey(key: string): string {
  if (!/^[\x21-\x7e]{1,255}$/.test(key)) {
    throw ServiceError.invalidField(
      'Idempotency-Key',
      'idempotencyKey',
      'Idempotency-Key must be 1..255 printable ASCII characters',
      BillingErrorCodes.INVALID_REQUEST,
    );
  }
  return key;
}

/** Which refusals are kept as the key's answer: the client's mistakes (4xx) but not the passing ones (409 races, 429, 503). */
export function isFinalOutcome(error: ServiceError): boolean {
  return error.status >= 400 && error.status < 500 && error.status !== 409 && error.status !== 429;
}
