import { AdPlatformError } from '@funnel/integrations-domain';
import { type ProviderAnswer, retryAfterOf } from '../../http/provider-http';

/**
 * Google's API error model (AIP-193), which the Google Ads API and the Data Manager API both
 * answer: `{ error: { code, message, status, details: [...] } }`, where `details` holds typed
 * payloads (`@type`): google.rpc.ErrorInfo (`reason`), google.rpc.RetryInfo (`retryDelay`),
 * google.rpc.BadRequest (`fieldViolations`), and the Google Ads API's GoogleAdsFailure
 * (`errors[].errorCode`, `errors[].details.quotaErrorDetails.retryDelay`).
 */
export interface GoogleErrorBody {
  error?: {
    code?: unknown;
    message?: unknown;
    status?: unknown;
    details?: GoogleErrorDetail[];
  };
}

interface GoogleErrorDetail {
  '@type'?: unknown;
  reason?: unknown;
  retryDelay?: unknown;
  fieldViolations?: { field?: unknown; description?: unknown; reason?: unknown }[];
  errors?: { errorCode?: Record<string, unknown>; message?: unknown; details?: { quotaErrorDetails?: { retryDelay?: unknown } } }[];
}

/** ErrorInfo reasons that a new authorization fixes (the token lacks a scope the call needs). */
const AUTH_REASONS = new Set(['ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'ACCESS_TOKEN_EXPIRED', 'CREDENTIALS_MISSING']);

/** A protobuf Duration as JSON (`"30s"`, `"1.5s"`) in whole seconds, rounded up. */
function durationSeconds(value: unknown): number | undefined {
  if (typeof value !== 'string') return undefined;
  const match = /^(\d+(?:\.\d+)?)s$/.exec(value);
  return match ? Math.max(1, Math.ceil(Number(match[1]))) : undefined;
}

const detailsOf = (body: unknown): GoogleErrorDetail[] => {
  const details = (body as GoogleErrorBody | undefined)?.error?.details;
  return Array.isArray(details) ? details : [];
};

const typeIs = (detail: GoogleErrorDetail, name: string) => typeof detail['@type'] === 'string' && detail['@type'].endsWith(name);

/** The backoff Google asks for: `Retry-After`, else RetryInfo's `retryDelay`, else the Google Ads API's `quotaErrorDetails.retryDelay`. */
export function googleRetryAfter(answer: ProviderAnswer): number | undefined {
  const header = retryAfterOf(answer.headers);
  if (header !== undefined) return header;
  for (const detail of detailsOf(answer.body)) {
    if (typeIs(detail, 'google.rpc.RetryInfo')) {
      const seconds = durationSeconds(detail.retryDelay);
      if (seconds !== undefined) return seconds;
    }
    for (const error of detail.errors ?? []) {
      const seconds = durationSeconds(error.details?.quotaErrorDetails?.retryDelay);
      if (seconds !== undefined) return seconds;
    }
  }
  return undefined;
}

/** The BadRequest field violations of an answer (`events[3].ad_identifiers.gclid`: `...`). */
export function googleFieldViolations(body: unknown): { field: string; description: string }[] {
  return detailsOf(body)
    .filter((detail) => typeIs(detail, 'google.rpc.BadRequest'))
    .flatMap((detail) => detail.fieldViolations ?? [])
    .map((violation) => ({
      field: typeof violation.field === 'string' ? violation.field : '',
      description: String(violation.description ?? violation.reason ?? 'invalid'),
    }));
}

/** The error codes of a Google Ads API failure, as `authenticationError: OAUTH_TOKEN_EXPIRED`. */
function adsErrorCodes(body: unknown): string[] {
  return detailsOf(body)
    .flatMap((detail) => detail.errors ?? [])
    .flatMap((error) => Object.entries(error.errorCode ?? {}).map(([kind, code]) => `${kind}: ${String(code)}`));
}

/**
 * A failed Google answer as the port's error: 401 (UNAUTHENTICATED), a token lacking a scope and
 * a Google Ads authentication error are `auth` (a reauthorization fixes them); 429
 * (RESOURCE_EXHAUSTED) is `rate_limited` and 5xx `unavailable`, both with the backoff Google asks
 * for; anything else `refused`. The message names Google's status, reason and error codes, never
 * the token.
 */
export function googleFailure(answer: ProviderAnswer, what: string): AdPlatformError {
  const error = (answer.body as GoogleErrorBody | undefined)?.error;
  const status = typeof error?.status === 'string' ? error.status : undefined;
  const reasons = detailsOf(answer.body)
    .filter((detail) => typeIs(detail, 'google.rpc.ErrorInfo'))
    .map((detail) => String(detail.reason ?? ''));
  const codes = adsErrorCodes(answer.body);
  const labels = [status, ...reasons, ...codes].filter(Boolean).join(', ');
  const message = `${what}: Google answered ${answer.status}${labels ? ` (${labels})` : ''}${
    typeof error?.message === 'string' ? `: ${error.message.slice(0, 300)}` : ''
  }`;
  if (
    answer.status === 401 ||
    status === 'UNAUTHENTICATED' ||
    reasons.some((reason) => AUTH_REASONS.has(reason)) ||
    codes.some((code) => code.startsWith('authenticationError'))
  ) {
    return new AdPlatformError('auth', message);
  }
  if (answer.status === 429 || status === 'RESOURCE_EXHAUSTED') return new AdPlatformError('rate_limited', message, googleRetryAfter(answer));
  if (answer.status >= 500) return new AdPlatformError('unavailable', message, googleRetryAfter(answer));
  return new AdPlatformError('refused', message);
}
