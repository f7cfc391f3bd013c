import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet } from 'jose';
import { ACCESS_TOKEN, ID_TOKEN, SessionUser, VerifiedAccessToken, verifyAccessToken } from '@funnel/contracts';
import { IdentityKeys } from './identity-keys';

export interface TokenSubject {
  userId: string;
  accountId: string;
  permissions: string[];
}

export interface TokenSettings {
  /** Access-token lifetime (spec: 72 hours). */
  accessTokenTtlSeconds: number;
}

/** Signs access and ID tokens with the active key, and verifies access tokens against every key. */
export class TokenIssuer {
  private readonly verificationKeys: ReturnType<typeof createLocalJWKSet>;

  constructor(
    private readonly keys: IdentityKeys,
    private readonly settings: TokenSettings,
    private readonly clock: () => number,
  ) {
    this.verificationKeys = createLocalJWKSet(keys.publicKeySet());
  }

  /** A new access token and its expiry (Unix seconds). */
  async accessToken(subject: TokenSubject): Promise<{ token: string; expiresAt: number }> {
    const now = Math.floor(this.clock() / 1000);
    const expiresAt = now + this.settings.accessTokenTtlSeconds;
    const key = this.keys.activeSigningKey;
    const token = await new SignJWT({ acc: subject.accountId, perms: subject.permissions })
      .setProtectedHeader({ alg: ACCESS_TOKEN.algorithm, kid: key.kid, typ: ACCESS_TOKEN.type })
      .setIssuer(ACCESS_TOKEN.issuer)
      .setAudience(ACCESS_TOKEN.audience)
      .setSubject(subject.userId)
      .setIssuedAt(now)
      .setExpirationTime(expiresAt)
      .setJti(randomUUID())
      .sign(key.privateKey);
    return { token, expiresAt };
  }

  /** The OpenID-style ID token: the user's profile for the client (never accepted as a credential). */
  idToken(user: SessionUser, expiresAt: number): Promise<string> {
    const key = this.keys.activeSigningKey;
    const { user_id, permissions: _permissions, picture_url, ...profile } = user;
    return new SignJWT({ ...profile, picture: picture_url })
      .setProtectedHeader({ alg: ACCESS_TOKEN.algorithm, kid: key.kid, typ: ID_TOKEN.type })
      .setIssuer(ACCESS_TOKEN.issuer)
      .setAudience(ID_TOKEN.audience)
      .setSubject(user_id)
      .setIssuedAt(Math.floor(this.clock() / 1000))
      .setExpirationTime(expiresAt)
      .sign(key.privateKey);
  }

  /**
   * Verifies an access token signed by any of this service's keys; `allowExpired` for /auth/validate.
   * A token meant to live longer than the configured lifetime is refused.
   */
  verify(token: string, allowExpired: boolean): Promise<VerifiedAccessToken> {
    return verifyAccessToken(token, this.verificationKeys, {
      now: new Date(this.clock()),
      allowExpired,
      maxLifetimeSeconds: this.settings.accessTokenTtlSeconds,
    });
  }
}
