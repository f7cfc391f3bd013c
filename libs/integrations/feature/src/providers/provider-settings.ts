/**
 * An ad platform's settings, from `INTEGRATION_<PROVIDER>_*` (see the runtime's integrations
 * config): the OAuth client, the provider's addresses (configuration, so tests and staging point
 * them at local servers), and the redirect URI registered with the provider's app.
 */
export interface ProviderSettings {
  clientId: string | undefined;
  clientSecret: string | undefined;
  /** The provider's authorization endpoint (where the user is sent). */
  authUrl: string;
  /** Its token endpoint. */
  tokenUrl: string;
  /** The base of its API (`https://graph.facebook.com/v21.0`). */
  apiUrl: string;
  /** Bound of one provider call (default 10 s). */
  timeoutMs: number;
  /** The provider's own further settings (its catalog entry's `extras`, by key), e.g. a second API's address or a developer token. */
  extra: Record<string, string | undefined>;
}

/**
 * A setting only some providers have: `INTEGRATION_<PROVIDER>_<env>`, handed to the adapter as
 * `settings.extra[key]`. A `url` is checked as an address (http allowed, for local servers); a
 * `secret` is never logged or answered.
 */
export interface ProviderExtraSetting {
  key: string;
  env: string;
  kind: 'url' | 'string' | 'secret';
  /** Used when the variable is not set (documented addresses); none: optional. */
  default?: string;
}
