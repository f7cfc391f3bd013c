import { Inject, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { ISSUED_API_KEY_PATTERN, Principal, ServiceError, holdsPermission } from '@funnel/contracts';
import { ApiKeyAuthenticator } from './api-key-authenticator';
import { CredentialAttempt, CredentialFailures, KEY_PREFIX_LENGTH } from './credential-failures';
import { TokenVerifier, isExpiredTokenError } from './token-verifier';
import { API_KEY_AUTHENTICATOR, CREDENTIAL_FAILURES, TOKEN_VERIFIER } from './gateway.tokens';

/** The API key of a request: `key` query parameter or `X-API-Key` header (legacy schemes, both accepted). */
export function apiKeyOf(request: FastifyRequest): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header !== '') return header;
  const query = request.query as Record<string, unknown> | undefined;
  const key = query?.key;
  if (typeof key === 'string' && key !== '') return key;
  if (Array.isArray(key) && typeof key[0] === 'string') return key[0];
  return undefined;
}

/** The token of an `Authorization: Bearer <token>` header. */
export function bearerTokenOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/**
 * Who sent a request: an access token (verified locally) or an API key (verified by identity, cached
 * briefly). Failed attempts count per client address, per claimed key prefix and in all (see
 * CredentialFailures): a valid credential is never refused for them.
 */
@Injectable()
export class Credentials {
  constructor(
    @Inject(API_KEY_AUTHENTICATOR) private readonly apiKeys: ApiKeyAuthenticator,
    @Inject(TOKEN_VERIFIER) private readonly tokens: TokenVerifier,
    @Inject(CREDENTIAL_FAILURES) private readonly failures: CredentialFailures,
  ) {}

  async authenticate(request: FastifyRequest): Promise<Principal> {
    const correlationId = String(request.id);
    const token = bearerTokenOf(request);
    const key = token ? undefined : apiKeyOf(request);
    if (!token && !key) {
      throw ServiceError.unauthorized('not authorized: send an access token (Authorization: Bearer) or an API key (X-API-Key header or key query parameter)');
    }
    const attempt: CredentialAttempt = { address: request.ip, ...(key !== undefined ? { keyPrefix: key.slice(0, KEY_PREFIX_LENGTH) } : {}) };
    // An issued key (192 random bits: guessing it is hopeless) or a key seen valid lately is always
    // checked; another one only while its buckets allow, so guessing a weak key stays slow.
    if (key !== undefined && !ISSUED_API_KEY_PATTERN.test(key) && !this.apiKeys.knownValid(key)) this.failures.admitUnknownKey(attempt);
    try {
      return await (token ? this.tokens.verify(token, correlationId) : this.apiKeys.authenticate(key!, correlationId));
    } catch (error) {
      if (error instanceof ServiceError && error.status === 401 && !isExpiredTokenError(error)) throw this.failures.failed(attempt) ?? error;
      throw error;
    }
  }
}

/** The route's permission, held or implied (`reporting:write` implies `reporting:read`); else 403. */
export function requirePermission(principal: Principal, permission: string): void {
  if (!holdsPermission(principal.permissions, permission)) throw ServiceError.forbidden(`this credential lacks the ${permission} permission`);
}
