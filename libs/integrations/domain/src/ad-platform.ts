/**
 * The port every ad platform (Meta, Google Ads, TikTok, Microsoft Advertising) is an adapter of:
 * OAuth (authorization URL with PKCE where the provider takes it, code exchange, refresh, revoke),
 * what the login reaches (ad accounts, conversion goals), and the two jobs' calls (costs in,
 * conversions out). Generic code asks an adapter's `capabilities`, never its name.
 */

/** Tokens as the adapter hands them over (clear text: encrypted before they are stored). */
export interface AdPlatformTokens {
  accessToken: string;
  /** Null when the provider issues none (Meta, TikTok). */
  refreshToken: string | null;
  /** ISO 8601; null when the token does not expire (TikTok). */
  expiresAt: string | null;
  scopes: string[];
}

export interface AdAccount {
  id: string;
  name: string;
  /** ISO 4217. */
  currency: string;
  /** IANA time zone of the ad account (its spend days are days of this zone). */
  timezone: string;
}

export interface ConversionGoal {
  id: string;
  name: string;
  /** What the provider calls it: `dataset`, `conversion_action`, `pixel`, `offline_goal`. */
  type: string;
}

export interface AdPlatformCapabilities {
  /** Spend per campaign and day can be pulled (cost sync). */
  costSync: boolean;
  /** Conversions can be sent to a goal (conversion upload). */
  conversionUpload: boolean;
  /** The authorization takes a PKCE challenge (S256). */
  pkce: boolean;
  /** Tokens can be refreshed without the user (else an expired token needs a reauthorization). */
  refresh: boolean;
  /** Tokens can be revoked at the provider when the integration is deleted. */
  revoke: boolean;
  /** Most conversions in one upload request. */
  uploadBatchLimit: number;
  /** The oldest conversion the provider takes, in days (null: no bound). */
  uploadMaxAgeDays: number | null;
  needs: {
    /** A goal link names the provider's event (Meta datasets, TikTok pixels). */
    goalEventName: boolean;
    /** The click-id tracking fields the provider matches conversions by. */
    clickIdFields: string[];
  };
}

/** A spend window: whole days in the ad account's time zone, `YYYY-MM-DD`, both included. */
export interface CostWindow {
  since: string;
  until: string;
  timezone: string;
}

export interface CampaignDayCost {
  campaignId: string;
  /** The day, `YYYY-MM-DD` in the ad account's time zone. */
  day: string;
  spend: number;
  currency: string;
}

export interface ConversionToUpload {
  /** The provider's deduplication id: hit id + transaction id. */
  eventId: string;
  clickId: string;
  /** When the click happened (the hit's time, ISO 8601): Meta's fbc carries it. */
  clickedAt: string;
  /** ISO 8601. */
  occurredAt: string;
  /** The visitor's IP as the edge saw it (sent unhashed where the provider takes it), or null. */
  clientIp: string | null;
  /** Our visitor id, hashed by the adapter where the provider wants it hashed, or null. */
  externalId: string | null;
  value: number | null;
  currency: string | null;
}

export interface GoalTarget {
  adAccountId: string;
  goalId: string;
  eventName: string | null;
}

export interface UploadOutcome {
  /** Conversions the provider took. */
  accepted: number;
  /** Those it refused, with its reason. */
  rejected: { eventId: string; reason: string }[];
  /** The provider's answer (kept in the deliveries log; never holds a token). */
  answer: unknown;
}

/** What the authorization URL carries. */
export interface AuthorizationRequest {
  state: string;
  redirectUri: string;
  /** The S256 challenge of the PKCE verifier, when the provider takes PKCE. */
  codeChallenge: string | null;
}

export interface CodeExchange {
  code: string;
  state: string;
  redirectUri: string;
  codeVerifier: string | null;
}

export interface AdPlatform {
  /** The name in routes and records: `meta`, `google`, `tiktok`, `microsoft`. */
  readonly provider: string;
  /** Its display name. */
  readonly name: string;
  /** Its client id (and secret) are configured: it can be connected. */
  readonly configured: boolean;
  readonly capabilities: AdPlatformCapabilities;
  /** The URL the user is sent to. */
  authorizationUrl(request: AuthorizationRequest): URL;
  /** Exchanges the redirect's code (and, for Meta, the short-lived token for a long-lived one). */
  exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens>;
  /** New tokens from the refresh token (capabilities.refresh). */
  refresh(tokens: AdPlatformTokens): Promise<AdPlatformTokens>;
  /** Revokes the login's grant (capabilities.revoke); resolves false when the provider would not. */
  revoke(tokens: AdPlatformTokens): Promise<boolean>;
  listAdAccounts(tokens: AdPlatformTokens): Promise<AdAccount[]>;
  listConversionGoals(tokens: AdPlatformTokens, adAccountId: string): Promise<ConversionGoal[]>;
  /** Spend per campaign and day of the window (capabilities.costSync). */
  pullCosts(tokens: AdPlatformTokens, adAccountId: string, window: CostWindow): Promise<CampaignDayCost[]>;
  /** One batch (at most capabilities.uploadBatchLimit) to a goal (capabilities.conversionUpload). */
  uploadConversions(tokens: AdPlatformTokens, goal: GoalTarget, batch: readonly ConversionToUpload[]): Promise<UploadOutcome>;
}

/**
 * A provider call that failed, by what the caller should do: `auth` (the token is expired or
 * revoked: the integration needs a reauthorization, stop calling), `rate_limited` and
 * `unavailable` (try again later, after `retryAfterSeconds` when known), `refused` (the request
 * itself is wrong: retrying will not help).
 */
export class AdPlatformError extends Error {
  constructor(
    readonly kind: 'auth' | 'rate_limited' | 'unavailable' | 'refused',
    message: string,
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AdPlatformError';
  }
}

/** The adapters by provider name. */
export class AdPlatformRegistry {
  private readonly byProvider = new Map<string, AdPlatform>();

  constructor(platforms: readonly AdPlatform[]) {
    for (const platform of platforms) {
      if (this.byProvider.has(platform.provider)) throw new Error(`two adapters for provider ${platform.provider}`);
      this.byProvider.set(platform.provider, platform);
    }
  }

  get(provider: string): AdPlatform | undefined {
    return this.byProvider.get(provider);
  }

  all(): AdPlatform[] {
    return [...this.byProvider.values()];
  }
}
