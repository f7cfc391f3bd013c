import { type JWTPayload, type JWTVerifyGetKey, decodeJwt, errors, jwtVerify } from 'jose';
import type { Principal } from './index';

/**
 * The access-token format shared by the identity service (which signs) and the gateway (which
 * verifies locally): a JWT signed with an asymmetric key named by `kid`, typed `at+jwt` (RFC 9068),
 * whose claims name the user (`sub`), the account (`acc`) and the permissions (`perms`).
 */
export const ACCESS_TOKEN = {
  issuer: 'funnel-service',
  audience: 'funnel-api',
  type: 'at+jwt',
  algorithm: 'ES256',
} as const;

/** How far a token's `iat` may lie ahead of the verifier's clock (clock skew between hosts), in seconds. */
export const ACCESS_TOKEN_CLOCK_SKEW_SECONDS = 60;

/** The ID token: the user's profile for the client, never accepted as a credential. */
export const ID_TOKEN = { audience: 'funnel-client', type: 'JWT' } as const;

export interface AccessTokenClaims extends JWTPayload {
  sub: string;
  acc: string;
  perms: string[];
  exp: number;
}

export interface VerifiedAccessToken {
  principal: Principal;
  claims: AccessTokenClaims;
  /** Unix seconds. */
  expiresAt: number;
  expired: boolean;
}

/** Why a token was refused; never more precise toward the client than "not authorized". */
export class AccessTokenRejected extends Error {
  constructor(
    reason: string,
    /** True when the only fault is the expiry (the client should renew). */
    readonly expired = false,
  ) {
    super(reason);
    this.name = 'AccessTokenRejected';
  }
}

/**
 * Verifies signature, type, issuer, audience and claims. `allowExpired` (only /auth/validate)
 * accepts a token past its expiry, checking everything else as of just before it expired.
 * `maxLifetimeSeconds` (the configured access-token lifetime) refuses a token whose `exp - iat`
 * is longer: whoever could sign one cannot make it outlive the configured lifetime. A token issued
 * (`iat`) more than ACCESS_TOKEN_CLOCK_SKEW_SECONDS ahead of `now` is refused too.
 */
export async function verifyAccessToken(
  token: string,
  keys: JWTVerifyGetKey,
  options: { now?: Date; allowExpired?: boolean; maxLifetimeSeconds?: number } = {},
): Promise<VerifiedAccessToken> {
  const now = options.now ?? new Date();
  let asOf = now;
  if (options.allowExpired) {
    let exp: unknown;
    try {
      exp = decodeJwt(token).exp;
    } catch {
      throw new AccessTokenRejected('malformed token');
    }
    if (typeof exp !== 'number') throw new AccessTokenRejected('token without expiry');
    if (exp * 1000 <= now.getTime()) asOf = new Date(exp * 1000 - 1000);
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      issuer: ACCESS_TOKEN.issuer,
      audience: ACCESS_TOKEN.audience,
      typ: ACCESS_TOKEN.type,
      algorithms: [ACCESS_TOKEN.algorithm],
      requiredClaims: ['sub', 'exp', 'iat'],
      currentDate: asOf,
    }));
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) throw error;
    if (error instanceof errors.JWTExpired) throw new AccessTokenRejected('the access token has expired', true);
    throw new AccessTokenRejected(error instanceof Error ? error.message : 'invalid token');
  }
  const claims = payload as AccessTokenClaims;
  if (typeof claims.iat !== 'number' || claims.iat > now.getTime() / 1000 + ACCESS_TOKEN_CLOCK_SKEW_SECONDS) {
    throw new AccessTokenRejected('token issued in the future');
  }
  if (options.maxLifetimeSeconds !== undefined && (typeof claims.iat !== 'number' || claims.exp - claims.iat > options.maxLifetimeSeconds)) {
    throw new AccessTokenRejected('token lifetime longer than the configured access-token lifetime');
  }
  if (typeof claims.acc !== 'string' || !Array.isArray(claims.perms) || !claims.perms.every((p) => typeof p === 'string')) {
    throw new AccessTokenRejected('token without account or permissions');
  }
  return {
    principal: { accountId: claims.acc, userId: claims.sub, permissions: claims.perms },
    claims,
    expiresAt: claims.exp,
    expired: claims.exp * 1000 <= now.getTime(),
  };
}
