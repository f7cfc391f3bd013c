import { createHash, randomBytes } from 'node:crypto';

/**
 * API keys are stored as SHA-256 digests: a key is looked up by its digest and never kept in clear.
 * (Keys are long random strings, so a fast digest is enough; passwords use scrypt.)
 */
export function apiKeyDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** The first characters shown in key lists so owners can tell keys apart. */
export function apiKeyPrefix(key: string): string {
  return key.slice(0, 6);
}

export function generateApiKey(): string {
  return `fk_${randomBytes(24).toString('base64url')}`;
}

/** A new key's id: 24 random hex characters, unrelated to the key (an id, shown in lists and logs, tells nothing about the key). */
export function newApiKeyId(): string {
  return randomBytes(12).toString('hex');
}
