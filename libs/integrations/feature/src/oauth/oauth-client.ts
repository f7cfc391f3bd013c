import * as oidc from 'openid-client';
import { AdPlatformError, type AdPlatformTokens, type AuthorizationRequest, type CodeExchange } from '@funnel/integrations-domain';
import type { ProviderSettings } from '../providers/provider-settings';

/** PKCE: a new verifier and its S256 challenge (openid-client). */
export async function newPkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  return { verifier, challenge: await oidc.calculatePKCECodeChallenge(verifier) };
}

/** A random `state` of 32 bytes, base64url (openid-client). */
export function newOAuthState(): string {
  return oidc.randomState();
}

const isLoopback = (url: string) => ['127.0.0.1', '[::1]', 'localhost'].includes(new URL(url).hostname);

/**
 * The standard OAuth 2 authorization-code half of an adapter, with openid-client 6: the
 * authorization URL (state, PKCE S256 where the provider takes it), the code exchange (the state is
 * checked against the redirect's), and refresh. Plain http is allowed for loopback addresses only
 * (the local servers of tests and development).
 */
export class OAuthClient {
  private readonly scopeSeparator: string;
  /** Sent with the code exchange and the refresh too (the provider wants the scopes there again). */
  private readonly tokenParameters: Record<string, string>;
  private configuration?: oidc.Configuration;

  constructor(
    private readonly settings: ProviderSettings,
    private readonly scopes: readonly string[],
    options: { scopeSeparator?: string; scopeOnTokenRequests?: boolean } = {},
  ) {
    this.scopeSeparator = options.scopeSeparator ?? ' ';
    this.tokenParameters = options.scopeOnTokenRequests ? { scope: scopes.join(this.scopeSeparator) } : {};
  }

  /** Made on first use: a provider without a client id (not configured) is never called. */
  private get config(): oidc.Configuration {
    if (!this.configuration) {
      const { settings } = this;
      if (!settings.clientId || !settings.clientSecret) throw new AdPlatformError('refused', 'the provider has no client id and secret configured');
      this.configuration = new oidc.Configuration(
        { issuer: new URL(settings.authUrl).origin, authorization_endpoint: settings.authUrl, token_endpoint: settings.tokenUrl },
        settings.clientId,
        { client_secret: settings.clientSecret, timeout: Math.ceil(settings.timeoutMs / 1000) },
        oidc.ClientSecretPost(settings.clientSecret),
      );
      if (isLoopback(settings.authUrl) || isLoopback(settings.tokenUrl)) oidc.allowInsecureRequests(this.configuration);
    }
    return this.configuration;
  }

  authorizationUrl(request: AuthorizationRequest, extra: Record<string, string> = {}): URL {
    return oidc.buildAuthorizationUrl(this.config, {
      redirect_uri: request.redirectUri,
      scope: this.scopes.join(this.scopeSeparator),
      state: request.state,
      ...(request.codeChallenge ? { code_challenge: request.codeChallenge, code_challenge_method: 'S256' } : {}),
      ...extra,
    });
  }

  /** Exchanges the code; the provider's refusal (a used or wrong code) is `refused`, its absence `unavailable`. */
  async exchangeCode(exchange: CodeExchange): Promise<AdPlatformTokens> {
    const callback = new URL(exchange.redirectUri);
    callback.searchParams.set('code', exchange.code);
    callback.searchParams.set('state', exchange.state);
    try {
      const answer = await oidc.authorizationCodeGrant(
        this.config,
        callback,
        { expectedState: exchange.state, ...(exchange.codeVerifier ? { pkceCodeVerifier: exchange.codeVerifier } : {}) },
        this.tokenParameters,
      );
      return this.tokensOf(answer, null);
    } catch (error) {
      throw providerFailure(error, 'the code exchange');
    }
  }

  async refresh(refreshToken: string): Promise<AdPlatformTokens> {
    try {
      return this.tokensOf(await oidc.refreshTokenGrant(this.config, refreshToken, this.tokenParameters), refreshToken);
    } catch (error) {
      const failure = providerFailure(error, 'the token refresh');
      // A refused refresh token (invalid_grant) is a lost authorization.
      throw failure.kind === 'refused' ? new AdPlatformError('auth', failure.message) : failure;
    }
  }

  private tokensOf(answer: oidc.TokenEndpointResponse, previousRefresh: string | null): AdPlatformTokens {
    const expiresIn = answer.expires_in;
    return {
      accessToken: answer.access_token,
      refreshToken: answer.refresh_token ?? previousRefresh,
      expiresAt: typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000).toISOString() : null,
      scopes: typeof answer.scope === 'string' && answer.scope ? answer.scope.split(/[ ,]+/) : [...this.scopes],
    };
  }
}

/** openid-client's errors as the port's: the provider's OAuth error (no token in it), or no answer. */
function providerFailure(error: unknown, what: string): AdPlatformError {
  if (error instanceof oidc.ResponseBodyError)
    return new AdPlatformError('refused', `${what} was refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`);
  if (error instanceof oidc.AuthorizationResponseError) return new AdPlatformError('refused', `${what} was refused: ${error.error}`);
  const status = (error as { status?: number }).status;
  if (typeof status === 'number' && status >= 500) return new AdPlatformError('unavailable', `${what} failed: the provider answered ${status}`);
  if (error instanceof TypeError || (error as Error).name === 'TimeoutError' || (error as Error).name === 'AbortError') {
    return new AdPlatformError('unavailable', `${what} failed: the provider could not be reached`);
  }
  return new AdPlatformError('refused', `${what} failed: ${(error as Error).message}`);
}
