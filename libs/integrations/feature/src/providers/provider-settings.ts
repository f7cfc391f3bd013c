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
}
