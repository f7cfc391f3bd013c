import { createHash, randomBytes } from 'node:crypto';

/** Opaque bearer secrets (refresh and MFA tokens): random, shown once, stored as SHA-256 digests. */
export function newOpaqueToken(prefix: 'frt' | 'mfa'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
