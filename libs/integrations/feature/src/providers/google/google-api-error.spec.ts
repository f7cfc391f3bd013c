import type { ProviderAnswer } from '../../http/provider-http';
import { googleFailure, googleFieldViolations, googleRetryAfter } from './google-api-error';

const answer = (status: number, error: unknown, headers: Record<string, string> = {}): ProviderAnswer => ({
  status,
  body: { error },
  headers: new Headers(headers),
});

const adsFailure = (errorCode: Record<string, string>, details?: unknown) => ({
  '@type': 'type.googleapis.com/google.ads.googleads.v26.errors.GoogleAdsFailure',
  errors: [{ errorCode, message: 'failed', ...(details ? { details } : {}) }],
  requestId: 'r1',
});

describe("Google's error model as the port's errors", () => {
  it('reads the backoff from Retry-After, else RetryInfo, else the Google Ads quota details (a Duration, rounded up)', () => {
    expect(googleRetryAfter(answer(429, { status: 'RESOURCE_EXHAUSTED' }, { 'retry-after': '7' }))).toBe(7);
    expect(
      googleRetryAfter(answer(429, { status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2.5s' }] })),
    ).toBe(3);
    const quota = answer(429, {
      code: 429,
      status: 'RESOURCE_EXHAUSTED',
      details: [adsFailure({ quotaError: 'RESOURCE_TEMPORARILY_EXHAUSTED' }, { quotaErrorDetails: { rateScope: 'ACCOUNT', retryDelay: '30s' } })],
    });
    expect(googleRetryAfter(quota)).toBe(30);
    expect(googleFailure(quota, 'pulling costs')).toMatchObject({
      kind: 'rate_limited',
      retryAfterSeconds: 30,
      message: 'pulling costs: Google answered 429 (RESOURCE_EXHAUSTED, quotaError: RESOURCE_TEMPORARILY_EXHAUSTED)',
    });
    expect(googleRetryAfter(answer(503, { status: 'UNAVAILABLE' }))).toBeUndefined();
  });

  it('is auth for an expired token, a missing scope or a Google Ads authentication error; refused for a permission or a bad request', () => {
    expect(googleFailure(answer(401, { status: 'UNAUTHENTICATED', message: 'Request had invalid authentication credentials.' }), 'x').kind).toBe('auth');
    const scope = answer(403, {
      status: 'PERMISSION_DENIED',
      details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' }],
    });
    expect(googleFailure(scope, 'x')).toMatchObject({ kind: 'auth', message: 'x: Google answered 403 (PERMISSION_DENIED, ACCESS_TOKEN_SCOPE_INSUFFICIENT)' });
    expect(googleFailure(answer(403, { status: 'PERMISSION_DENIED', details: [adsFailure({ authenticationError: 'NOT_ADS_USER' })] }), 'x').kind).toBe('auth');
    expect(googleFailure(answer(403, { status: 'PERMISSION_DENIED', details: [adsFailure({ authorizationError: 'USER_PERMISSION_DENIED' })] }), 'x').kind).toBe(
      'refused',
    );
    expect(googleFailure(answer(400, { status: 'INVALID_ARGUMENT' }), 'x').kind).toBe('refused');
    expect(googleFailure({ status: 502, body: undefined, headers: new Headers() }, 'x')).toMatchObject({
      kind: 'unavailable',
      message: 'x: Google answered 502',
    });
  });

  it('lists the BadRequest field violations, ignoring other details', () => {
    const body = {
      error: {
        status: 'INVALID_ARGUMENT',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'INVALID_ARGUMENT' },
          { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'events[2].ad_identifiers.gclid', description: 'Invalid.' }] },
        ],
      },
    };
    expect(googleFieldViolations(body)).toEqual([{ field: 'events[2].ad_identifiers.gclid', description: 'Invalid.' }]);
    expect(googleFieldViolations(undefined)).toEqual([]);
  });
});
