/** Nest tokens of the integrations module. */
export const INTEGRATION_PLATFORMS = Symbol.for('funnel.integrations.Platforms');
export const INTEGRATION_SECRETS = Symbol.for('funnel.integrations.Secrets');
export const INTEGRATION_CLOCK = Symbol.for('funnel.integrations.Clock');
/** The assets service's client (traffic sources a link names are checked there). */
export const INTEGRATION_ASSETS = Symbol.for('funnel.integrations.Assets');
export const INTEGRATION_SETTINGS = Symbol.for('funnel.integrations.Settings');

export interface IntegrationSettings {
  /**
   * INTEGRATION_REDIRECT_URI: where providers send the user back, registered with each provider's
   * app (the client app's page, which posts `code` and `state` to /v1/integrations/oauth/complete).
   * No provider can be connected without it.
   */
  redirectUri: string | undefined;
}
