import { ServiceError } from '@funnel/contracts';
import {
  IDEMPOTENCY_IN_FLIGHT_MS,
  IDEMPOTENCY_TTL_MS,
  IdempotencyEvent,
  checkIdempotencyKey,
  decideIdempotentRequest,
  evolveIdempotency,
  isFinalOutcome,
} from './idempotency';

const accountId = 'ACCOUNT0000A';
const t0 = Date.parse('2025-01-16T00:00:00Z');
const started = (fingerprint: string, at = t0): IdempotencyEvent => ({ type: 'IdempotentRequestStarted', data: { accountId, fingerprint, startedAt: at } });
const completed = (fingerprint: string, at = t0): IdempotencyEvent => ({
  type: 'IdempotentRequestCompleted',
  data: { accountId, fingerprint, completedAt: at, outcome: { ok: true, result: { success: true } } },
});
const released: IdempotencyEvent = { type: 'IdempotentRequestReleased', data: { accountId, releasedAt: t0 } };
const decide = (events: IdempotencyEvent[], fingerprint: string, now: number) =>
  decideIdempotentRequest(events.reduce(evolveIdempotency, {}), fingerprint, now);

describe('Idempotency-Key rule', () => {
  it('runs a new key', () => expect(decide([], 'a', t0)).toEqual({ type: 'run' }));
  it('answers the first answer again for the same request within 24 h', () =>
    expect(decide([started('a'), completed('a')], 'a', t0 + IDEMPOTENCY_TTL_MS - 1)).toEqual({
      type: 'replay',
      outcome: { ok: true, result: { success: true } },
    }));
  it('refuses another request with 409 IDEMPOTENCY_KEY_REUSED', () => {
    const decision = decide([started('a'), completed('a')], 'b', t0 + 1000);
    expect(decision).toMatchObject({ type: 'refuse', error: { status: 409, code: 'IDEMPOTENCY_KEY_REUSED' } });
  });
  it('runs again once the answer is 24 h old', () => expect(decide([started('a'), completed('a')], 'b', t0 + IDEMPOTENCY_TTL_MS)).toEqual({ type: 'run' }));
  it('refuses the same request while the first is under way (409 IDEMPOTENCY_KEY_IN_USE)', () =>
    expect(decide([started('a')], 'a', t0 + 10)).toMatchObject({ type: 'refuse', error: { status: 409, code: 'IDEMPOTENCY_KEY_IN_USE' } }));
  it('refuses another request while the first is under way (409 IDEMPOTENCY_KEY_REUSED)', () =>
    expect(decide([started('a')], 'b', t0 + 10)).toMatchObject({ type: 'refuse', error: { code: 'IDEMPOTENCY_KEY_REUSED' } }));
  it('takes over a request abandoned for a minute', () => expect(decide([started('a')], 'a', t0 + IDEMPOTENCY_IN_FLIGHT_MS)).toEqual({ type: 'run' }));
  it('runs again after a release', () => expect(decide([started('a'), released], 'a', t0 + 10)).toEqual({ type: 'run' }));

  it('accepts keys of 1..255 printable characters', () => {
    expect(checkIdempotencyKey('k')).toBe('k');
    expect(checkIdempotencyKey('x'.repeat(255))).toHaveLength(255);
    for (const bad of ['', 'x'.repeat(256), 'with space', 'naïve']) {
      expect(() => checkIdempotencyKey(bad)).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_REQUEST' }));
    }
  });

  it('keeps client mistakes as the answer, not races, rate limits or outages', () => {
    expect(isFinalOutcome(new ServiceError(400, 'INVALID_QUANTITY', 'x'))).toBe(true);
    expect(isFinalOutcome(new ServiceError(404, 'ADDON_NOT_FOUND', 'x'))).toBe(true);
    expect(isFinalOutcome(new ServiceError(409, 'CONFLICT', 'x'))).toBe(false);
    expect(isFinalOutcome(new ServiceError(429, 'RATE_LIMITED', 'x'))).toBe(false);
    expect(isFinalOutcome(new ServiceError(503, 'EDGE_UNAVAILABLE', 'x'))).toBe(false);
  });
});
