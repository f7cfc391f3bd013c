import { type JSONWebKeySet, createLocalJWKSet, errors } from 'jose';
import { AccessTokenRejected, IdentitySubjects, Principal, ServiceError, verifyAccessToken } from '@funnel/contracts';
import { ServiceClient } from '@funnel/platform';

/** At most one key-set fetch per this many ms when tokens name unknown keys (a forged kid must not flood identity). */
const MIN_REFETCH_MS = 5_000;

const EXPIRED = 'not authorized: the access token has expired';

/** A genuine token past its expiry: not a failed attempt (the client renews it), unlike a forged or foreign one. */
export function isExpiredTokenError(error: unknown): boolean {
  return error instanceof ServiceError && error.status === 401 && error.message === EXPIRED;
}

/**
 * Verifies access tokens locally with the identity service's public keys: fetched over the
 * service client, kept, and fetched again when a token names a key not in the set (rotation).
 * No call per request.
 */
export class TokenVerifier {
  private keySet?: Promise<ReturnType<typeof createLocalJWKSet>>;
  private fetchedAt = 0;

  /** `maxLifetimeSeconds`: the configured access-token lifetime; a token whose `exp - iat` is longer is refused. */
  constructor(
    private readonly client: ServiceClient,
    private readonly now: () => number = Date.now,
    private readonly maxLifetimeSeconds?: number,
  ) {}

  async verify(token: string, correlationId: string): Promise<Principal> {
    try {
      return await this.verifyWith(await this.keys(correlationId, false), token);
    } catch (error) {
      if (!(error instanceof errors.JWKSNoMatchingKey)) throw error;
      // Unknown kid: the identity service may have rotated its keys since the last fetch.
      const refreshed = await this.keys(correlationId, true);
      return this.verifyWith(refreshed, token).catch((again: unknown) => {
        throw again instanceof errors.JWKSNoMatchingKey ? ServiceError.unauthorized() : again;
      });
    }
  }

  private async verifyWith(keys: ReturnType<typeof createLocalJWKSet>, token: string): Promise<Principal> {
    try {
      const verified = await verifyAccessToken(token, keys, { now: new Date(this.now()), maxLifetimeSeconds: this.maxLifetimeSeconds });
      if (verified.expired) throw ServiceError.unauthorized(EXPIRED);
      return verified.principal;
    } catch (error) {
      if (error instanceof AccessTokenRejected) throw ServiceError.unauthorized(error.expired ? EXPIRED : 'not authorized');
      throw error;
    }
  }

  private keys(correlationId: string, refresh: boolean): Promise<ReturnType<typeof createLocalJWKSet>> {
    const stale = refresh && this.now() - this.fetchedAt >= MIN_REFETCH_MS;
    if (!this.keySet || stale) {
      this.fetchedAt = this.now();
      const context = { accountId: '', userId: '', permissions: [], correlationId };
      const fetching = this.client
        .request<JSONWebKeySet>(IdentitySubjects.signingKeys, { context, body: { query: {}, body: undefined } })
        .then((set) => createLocalJWKSet(set));
      // A failed fetch is not kept: the next token tries again.
      fetching.catch(() => {
        if (this.keySet === fetching) this.keySet = undefined;
      });
      this.keySet = fetching;
    }
    return this.keySet;
  }
}
