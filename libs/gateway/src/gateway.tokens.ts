/** The ServiceClient the gateway forwards requests through (NATS or in-process). */
export const SERVICE_CLIENT = Symbol.for('funnel.gateway.ServiceClient');
export const ROUTE_TABLE = Symbol.for('funnel.gateway.RouteTable');
export const API_KEY_AUTHENTICATOR = Symbol.for('funnel.gateway.ApiKeyAuthenticator');
export const READINESS_CHECKS = Symbol.for('funnel.gateway.ReadinessChecks');
export const METRICS_REGISTRY = Symbol.for('funnel.gateway.MetricsRegistry');
export const TOKEN_VERIFIER = Symbol.for('funnel.gateway.TokenVerifier');
export const CREDENTIAL_FAILURES = Symbol.for('funnel.gateway.CredentialFailures');
