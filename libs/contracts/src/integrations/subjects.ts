/**
 * Ad-platform integrations (OAuth connections to Meta, Google Ads, TikTok, Microsoft Advertising):
 * served by the reporting service, whose queues their cost sync and conversion upload feed, so the
 * subjects are under its root. Reads need `assets:read`, changes `integrations:manage`.
 */
export const IntegrationSubjects = {
  list: 'reporting.integrations.list',
  get: 'reporting.integrations.get',
  rename: 'reporting.integrations.rename',
  delete: 'reporting.integrations.delete',
  capabilities: 'reporting.integrations.capabilities',
  oauthStart: 'reporting.integrations.oauthStart',
  oauthComplete: 'reporting.integrations.oauthComplete',
  reauthorize: 'reporting.integrations.reauthorize',
  adAccounts: 'reporting.integrations.adAccounts',
  adAccountsRefresh: 'reporting.integrations.adAccountsRefresh',
  adAccountLink: 'reporting.integrations.adAccountLink',
  goals: 'reporting.integrations.goals',
  goalLink: 'reporting.integrations.goalLink',
  sync: 'reporting.integrations.sync',
  syncStatus: 'reporting.integrations.syncStatus',
} as const;

/** Error codes of the integration routes (standard error body). */
export const IntegrationErrorCodes = {
  NOT_FOUND: 'INTEGRATION.NOT_FOUND',
  AD_ACCOUNT_NOT_FOUND: 'INTEGRATION.AD_ACCOUNT_NOT_FOUND',
  GOAL_NOT_FOUND: 'INTEGRATION.GOAL_NOT_FOUND',
  /** A provider the service has no adapter for, or one not configured (no client id). */
  UNKNOWN_PROVIDER: 'INTEGRATION.UNKNOWN_PROVIDER',
  /** An OAuth `state` that is unknown, used, expired, or another user's or account's. */
  INVALID_STATE: 'INTEGRATION.INVALID_STATE',
  /** The provider refused the authorization (the user declined, a bad code). */
  AUTHORIZATION_FAILED: 'INTEGRATION.AUTHORIZATION_FAILED',
  /** The integration's token is expired or revoked: reauthorize it. */
  NEEDS_REAUTH: 'INTEGRATION.NEEDS_REAUTH',
  /** The provider did not answer, or answered a server error (503). */
  PROVIDER_UNAVAILABLE: 'INTEGRATION.PROVIDER_UNAVAILABLE',
  /** The provider refused the request (400, with its message). */
  PROVIDER_REFUSED: 'INTEGRATION.PROVIDER_REFUSED',
  /** The provider's rate limit (429, with Retry-After when it said). */
  PROVIDER_RATE_LIMITED: 'INTEGRATION.PROVIDER_RATE_LIMITED',
  /** Another request changed the integration meanwhile: try again. */
  CONFLICT: 'INTEGRATION.CONCURRENT_MODIFICATION',
  /** No sync job of this account has that id. */
  SYNC_JOB_NOT_FOUND: 'INTEGRATION.SYNC_JOB_NOT_FOUND',
  /** The provider cannot do that kind of sync (its capabilities), or nothing is linked for it. */
  SYNC_NOT_POSSIBLE: 'INTEGRATION.SYNC_NOT_POSSIBLE',
} as const;

export const INTEGRATION_STATUSES = ['active', 'needs_reauth', 'error', 'disconnected'] as const;
export type IntegrationStatus = (typeof INTEGRATION_STATUSES)[number];

/** How long an OAuth `state` (and its PKCE verifier) can be completed: 10 minutes. */
export const OAUTH_STATE_TTL_MS = 10 * 60 * 1000;

/** What a sync job does: pull spend in (`cost`) or send conversions out (`conversions`). */
export const SYNC_KINDS = ['cost', 'conversions'] as const;
export type SyncKind = (typeof SYNC_KINDS)[number];
export const SYNC_JOB_STATUSES = ['queued', 'running', 'done', 'failed', 'needs_reauth'] as const;
export type SyncJobStatus = (typeof SYNC_JOB_STATUSES)[number];
/** The longest window one sync asks for (cost: 93 days, as Meta's insights take comfortably; conversions: 7 days back at most anyway). */
export const SYNC_MAX_WINDOW_DAYS = 93;
