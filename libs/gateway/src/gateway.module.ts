import { integrationRoutes } from './integration-routes';
import { DynamicModule, Module } from '@nestjs/common';
import { ReadinessCheck, Registry, ServiceClient } from '@funnel/platform';
import { ForwardedRoute, RouteTable, assetRoutes } from './route-table';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { API_KEY_AUTHENTICATOR, CREDENTIAL_FAILURES, METRICS_REGISTRY, READINESS_CHECKS, ROUTE_TABLE, SERVICE_CLIENT, TOKEN_VERIFIER } from './gateway.tokens';
import { TokenVerifier } from './token-verifier';
import { CredentialFailurePolicy, CredentialFailures } from './credential-failures';
import { Credentials } from './credentials';
import { ForwardingRoute } from './forwarding.route';
import { IdsHttpController } from './ids.http.controller';
import { AsyncApiHttpController } from './docs/asyncapi.http.controller';
import { HealthHttpController, MetricsHttpController } from './health.http.controller';
import { ApiDocsHttpController } from './docs/api-docs.http.controller';
import { scriptRoutes } from './script-routes';
import { identityRoutes } from './identity-routes';
import { billingRoutes } from './billing-routes';
import { reportingRoutes } from './reporting-routes';
import { reportingQueryRoutes } from './reporting-query-routes';
import { CredentialRateLimit, DEFAULT_RATE_LIMIT, RateLimitOptions } from './limits/credential-rate-limit';

export interface GatewayOptions {
  client: ServiceClient;
  metrics: Registry;
  readiness: ReadinessCheck[];
  /** How long a verified API key is trusted without asking identity again (at most 5000 ms). */
  apiKeyCacheMs?: number;
  extraRoutes?: ForwardedRoute[];
  /** Milliseconds since the epoch; tests inject one to expire tokens. */
  clock?: () => number;
  /** The configured access-token lifetime: longer-lived tokens are refused. */
  accessTokenTtlSeconds?: number;
  /** When failed credential attempts block a client address (per replica). */
  credentialFailures?: CredentialFailurePolicy;
  /** Per-credential rate limit of this gateway replica (default 100 requests/s, bursts of 200). */
  rateLimit?: RateLimitOptions;
}

export function gatewayRoutes(extra: ForwardedRoute[] = []): ForwardedRoute[] {
  return [
    ...assetRoutes(),
    ...scriptRoutes(),
    ...identityRoutes(),
    ...billingRoutes(),
    ...reportingRoutes(),
    ...reportingQueryRoutes(),
    ...integrationRoutes(),
    ...extra,
  ];
}

@Module({})
export class GatewayModule {
  static forRoot(options: GatewayOptions): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [HealthHttpController, MetricsHttpController, IdsHttpController, ApiDocsHttpController, AsyncApiHttpController],
      providers: [
        ForwardingRoute,
        Credentials,
        { provide: TOKEN_VERIFIER, useValue: new TokenVerifier(options.client, options.clock, options.accessTokenTtlSeconds) },
        { provide: CREDENTIAL_FAILURES, useValue: new CredentialFailures(options.credentialFailures, options.clock) },
        { provide: SERVICE_CLIENT, useValue: options.client },
        { provide: METRICS_REGISTRY, useValue: options.metrics },
        { provide: READINESS_CHECKS, useValue: options.readiness },
        { provide: ROUTE_TABLE, useValue: new RouteTable(gatewayRoutes(options.extraRoutes)) },
        { provide: CredentialRateLimit, useValue: new CredentialRateLimit(options.rateLimit ?? DEFAULT_RATE_LIMIT, options.clock) },
        { provide: API_KEY_AUTHENTICATOR, useValue: new ApiKeyAuthenticator(options.client, Math.min(options.apiKeyCacheMs ?? 2000, 5000)) },
      ],
    };
  }
}
